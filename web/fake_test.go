package web_test

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/mock"
	"seald.dev/seald/proof"
	"seald.dev/seald/service"
	"seald.dev/seald/web"
)

// The page takes only what it reads; the program's Service and the fake both provide it.
var (
	_ web.Source = (*service.Service)(nil)
	_ web.Source = (*mock.VerificationService)(nil)
)

// fakePage serves the page over a fake Source whose PublicRecord answers rec or err.
func fakePage(rec *seald.PublicRecord, err error) (*web.Page, *mock.VerificationService) {
	svc := &mock.VerificationService{
		PublicRecordFn: func(_ context.Context, id string) (*seald.PublicRecord, error) {
			if err != nil {
				return nil, err
			}
			return rec, nil
		},
		VerificationLinkFn: func(ref string) string { return "https://verify.example.test/v/" + ref },
		TrustRootURLFn:     func() string { return "https://verify.example.test/.well-known/seald-trust.json" },
	}
	return &web.Page{Service: svc, GatewayURL: "https://gw.example.test", Logger: nil}, svc
}

func serve(p *web.Page, path string) (*httptest.ResponseRecorder, string) {
	w := httptest.NewRecorder()
	p.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	b, _ := io.ReadAll(w.Body)
	return w, string(b)
}

func TestPageWithFakeSource(t *testing.T) {
	rec := &seald.PublicRecord{Status: seald.StatusSuspended, Reference: "D-1", Hash: "ab12", Network: "POLYGON",
		Chain: seald.Chain{Network: "POLYGON", ChainID: "137", Contract: "0xC0"}, TokenID: 9, TxHash: "0xt",
		CreatedAt: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), Business: &seald.Business{Name: "Acme & Sons"}, Project: &seald.Project{Name: "Docs"}}
	p, _ := fakePage(rec, nil)
	w, body := serve(p, "/v/D-1")
	if w.Code != 200 || w.Header().Get("Content-Type") != "text/html; charset=utf-8" || w.Header().Get("Cache-Control") != "no-store" ||
		w.Header().Get("Referrer-Policy") != "no-referrer" || !strings.Contains(w.Header().Get("Content-Security-Policy"), "connect-src 'self' https: http:") {
		t.Fatalf("%d %v", w.Code, w.Header())
	}
	for _, want := range []string{"Suspended: do not rely on this record for now", "Acme &amp; Sons", "ab12",
		"https://verify.example.test/.well-known/seald-trust.json", "/v/D-1/proof.json", "4 March 2026, 05:06:07 UTC"} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}

	private, _ := fakePage(&seald.PublicRecord{Private: true, Status: seald.StatusActive}, nil)
	if _, body := serve(private, "/v/D-2"); !strings.Contains(body, "A private sealed record exists") || strings.Contains(body, "proof.json") {
		t.Errorf("private page: %s", body)
	}
}

func TestPageErrorsWithFakeSource(t *testing.T) {
	for _, c := range []struct {
		err    error
		status int
		want   string
	}{
		{seald.Errorf(seald.ENOTFOUND, "no sealed record under this reference"), 404, "No sealed record found"},
		{seald.Errorf(seald.EUNAVAILABLE, "database down"), 503, "Try again later"},
		{errors.New("disk on fire at /var/lib/seald"), 500, "Something went wrong"},
	} {
		p, _ := fakePage(nil, c.err)
		for _, path := range []string{"/v/D-1", "/v/D-1/qr.png"} {
			w, body := serve(p, path)
			if w.Code != c.status || !strings.Contains(body, c.want) || strings.Contains(body, "fire") ||
				w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
				t.Errorf("%s with %v: %d %q", path, c.err, w.Code, body)
			}
		}
	}
	p, _ := fakePage(nil, nil)
	if w, _ := serve(p, "/elsewhere"); w.Code != 404 {
		t.Errorf("unknown path: %d", w.Code)
	}
}

func TestProofTokenAndQRWithFakeSource(t *testing.T) {
	p, svc := fakePage(&seald.PublicRecord{Status: seald.StatusActive, Reference: "D-1"}, nil)
	svc.PublicProofFn = func(_ context.Context, id string) (*proof.Bundle, error) {
		if id != "D-1" {
			return nil, seald.Errorf(seald.ENOTFOUND, "no sealed record under this reference")
		}
		return &proof.Bundle{Version: proof.Version, Reference: "D-1", Hash: "ab12", MerklePath: []string{}}, nil
	}
	svc.TokenMetadataFn = func(_ context.Context, network, id string) (*seald.TokenMetadata, error) {
		if network != "POLYGON" || id != "9" {
			return nil, seald.Errorf(seald.ENOTFOUND, "no token %s on %s", id, network)
		}
		return &seald.TokenMetadata{Name: "seald record #9", Attributes: []seald.TokenTrait{}}, nil
	}
	w, body := serve(p, "/v/D-1/proof.json")
	if w.Code != 200 || w.Header().Get("Content-Disposition") != `attachment; filename="D-1.proof.json"` || !strings.Contains(body, `"reference": "D-1"`) {
		t.Errorf("proof: %d %v %s", w.Code, w.Header(), body)
	}
	if w, _ := serve(p, "/v/D-2/proof.json"); w.Code != 404 {
		t.Errorf("proof of an unknown record: %d", w.Code)
	}
	w, body = serve(p, "/tokens/POLYGON/9")
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json; charset=utf-8" || !strings.Contains(body, `"name": "seald record #9"`) {
		t.Errorf("token: %d %s", w.Code, body)
	}
	if w, _ := serve(p, "/tokens/EOS/9"); w.Code != 404 {
		t.Errorf("unknown token: %d", w.Code)
	}
	w, body = serve(p, "/v/D-1/qr.svg")
	if w.Code != 200 || w.Header().Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(body, "<svg") {
		t.Errorf("qr: %d %v", w.Code, w.Header())
	}
}
