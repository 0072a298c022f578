package bench

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"seald"
	"seald/jcs"
)

func TestPercentiles(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 1000; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	got := percentiles(ds)
	if got != (Latency{P50: 500, P95: 950, P99: 990, Max: 1000}) {
		t.Errorf("percentiles of 1..1000 ms: %+v", got)
	}
	if one := percentiles([]time.Duration{3 * time.Millisecond}); one.P50 != 3 || one.P99 != 3 {
		t.Errorf("one sample: %+v", one)
	}
	if none := percentiles(nil); none != (Latency{}) {
		t.Errorf("no samples: %+v", none)
	}
}

// The ceiling answers valid JSON of exactly the size it is asked for.
func TestStaticJSONSize(t *testing.T) {
	for _, size := range []int{60, 1234} {
		w := httptest.NewRecorder()
		staticJSON(http.StatusCreated, size).ServeHTTP(w, httptest.NewRequest("POST", "/", bytes.NewReader([]byte("{}"))))
		if w.Code != http.StatusCreated || w.Body.Len() != size || !json.Valid(w.Body.Bytes()) {
			t.Errorf("size %d: status %d, %d bytes, valid %v", size, w.Code, w.Body.Len(), json.Valid(w.Body.Bytes()))
		}
	}
}

// The RFC 8785 checks pass on seald's canonicalizer and catch one that does not canonicalize.
func TestRFCChecks(t *testing.T) {
	for _, c := range rfcChecks(jcs.Canonicalize) {
		if !c.Passed {
			t.Errorf("%s: %s", c.Name, c.Detail)
		}
	}
	failed := 0
	for _, c := range rfcChecks(func(b []byte) ([]byte, error) { return b, nil }) {
		if !c.Passed {
			failed++
		}
	}
	if failed < 2 {
		t.Errorf("the identity passes all but %d checks", failed)
	}
}

// Preloaded references are valid and ascend with their number.
func TestPreloadReference(t *testing.T) {
	prev := ""
	for _, i := range []int{0, 1, 255, 256, 70000, 1000000} {
		r := preloadReference(i)
		if err := seald.ParseReference(r); err != nil {
			t.Fatalf("%d: %s: %v", i, r, err)
		}
		if r <= prev {
			t.Errorf("%s after %s", r, prev)
		}
		prev = r
	}
}
