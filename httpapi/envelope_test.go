package httpapi

import (
	"encoding/json"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
)

// writeJSON encodes through pooled buffers; what it writes must stay byte for byte json.Marshal and a newline,
// whatever the previous answer in the buffer was.
func TestWriteJSONIsMarshal(t *testing.T) {
	values := []any{
		verifyBody{Success: true, Data: map[string]any{"html": "<a href='x'>&</a>", "sep": "\u2028\u2029", "n": 1.5e300}},
		plainBody{Success: false, Error: new(string)},
		strings.Repeat("long answer ", 10000), // larger than the pool keeps
		verifyBody{Success: true, Data: "short"},
	}
	for i, v := range values {
		rec := httptest.NewRecorder()
		writeJSON(rec, 200, v)
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.Body.String(); got != string(want)+"\n" {
			t.Errorf("value %d: wrote %.80q, want %.80q", i, got, want)
		}
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json; charset=utf-8" {
			t.Errorf("value %d: status %d, content type %q", i, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
	rec := httptest.NewRecorder()
	writeJSON(rec, 200, math.Inf(1)) // not representable in JSON
	if rec.Code != 500 || rec.Body.String() != `{"success":false,"data":null,"error":"internal error"}`+"\n" {
		t.Errorf("unencodable value: %d %q", rec.Code, rec.Body.String())
	}
}

func TestWantProof(t *testing.T) {
	for q, want := range map[string]bool{
		"": false, "reference=D-x": false, "proof=1": true, "a=b&proof=true": true, "proof=0": false,
		"pr%6Fof=1": true, "reference=%41&proof=1": true, "reference=%41": false, "proofs=1": false,
	} {
		r := httptest.NewRequest("GET", "/verification/api/v1/verify/reference?"+q, nil)
		if got := wantProof(r); got != want {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
}
