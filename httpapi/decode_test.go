package httpapi

import (
	"net/http/httptest"
	"strings"
	"testing"

	"seald"
)

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"data":{"a":1},"to":"a@b.c"}`, `{`, `[]`, `{"data":[1]}`, `{} {}`, `{"is_html":2}`, "\xff"} {
		f.Add(s, "application/json")
	}
	f.Add(`{}`, "text/plain")
	f.Add(`{}`, "application/json; charset=latin1")
	f.Fuzz(func(t *testing.T, body, ct string) {
		r := httptest.NewRequest("POST", "/x", strings.NewReader(body))
		r.Header.Set("Content-Type", ct)
		b, err := decode(r, 1<<16)
		if err != nil {
			switch seald.ErrorCode(err) {
			case seald.EINVALID, seald.EUNSUPPORTED, seald.ETOOLARGE:
			default:
				t.Fatalf("decode error %v has code %s", err, seald.ErrorCode(err))
			}
			return
		}
		// Whatever decoded, the member checks answer without panicking and only with EINVALID.
		if _, err := sealRequest(b, "POLYGON"); err != nil && seald.ErrorCode(err) != seald.EINVALID {
			t.Fatalf("sealRequest: %v", err)
		}
	})
}
