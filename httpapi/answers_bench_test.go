package httpapi_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/httpapi"
)

// BenchmarkVerifyAnswer is the handler's share of a verification by reference, the Service's read left out:
// "held" answers one record again and again (its encoded answer is reused), "changing" a record whose
// update time moves on every request (encoded every time).
func BenchmarkVerifyAnswer(b *testing.B) {
	for _, c := range []struct {
		name     string
		changing bool
	}{{"held", false}, {"changing", true}} {
		b.Run(c.name, func(b *testing.B) {
			a := newAPI(&testing.T{}, func(s *httpapi.Server) { s.Logger = slog.New(slog.DiscardHandler) })
			n := 0
			a.svc.VerifyFn = func(_ context.Context, _ *seald.Caller, _ seald.Lookup) (*seald.Verification, error) {
				r := *record
				if c.changing {
					n++
					r.UpdatedAt = r.UpdatedAt.Add(time.Duration(n) * time.Millisecond)
				}
				return &seald.Verification{Record: &r, Business: owner.Business, Project: owner.Project}, nil
			}
			req := httptest.NewRequest("GET", "/verification/api/v1/verify/reference?reference="+ref, nil)
			req.Header.Set("Ocp-Apim-Subscription-Key", subKey)
			req.Header.Set("Api-Key", apiKey)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				a.h.ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatal(w.Code, w.Body)
				}
			}
		})
	}
}
