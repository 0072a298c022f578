package httpapi_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"seald.dev/seald"
	"seald.dev/seald/httpapi"
	"seald.dev/seald/jcs"
	"seald.dev/seald/postgres"
	"seald.dev/seald/secret"
	"seald.dev/seald/service"
	"seald.dev/seald/sqlite"
	"seald.dev/seald/wire"
)

// TestVerificationAnswerNeverStale verifies one record through two instances (two Services and Servers; on
// PostgreSQL each with its own connection pool, as two processes) between changes made through either of
// them: suspension, reactivation, a business renamed, erasure, revocation. Each instance has answered
// before every change, so its encoded answers are held; after the change, each answer by reference and by
// hash must show it and be byte for byte what a fresh Server with nothing held answers.
func TestVerificationAnswerNeverStale(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "seald.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		neverStale(t, st, st)
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := os.Getenv("SEALD_TEST_POSTGRES_DSN")
		if dsn == "" {
			t.Skip("SEALD_TEST_POSTGRES_DSN is not set: PostgreSQL part skipped")
		}
		dsn = freshPostgresSchema(t, dsn)
		var stores [2]*postgres.Store
		for i := range stores {
			st, err := postgres.Open(t.Context(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			stores[i] = st
		}
		neverStale(t, stores[0], stores[1])
	})
}

func neverStale(t *testing.T, storeA, storeB seald.Store) {
	ctx := t.Context()
	secrets, err := secret.Generate()
	if err != nil {
		t.Fatal(err)
	}
	chains := map[string]seald.Chain{seald.NetworkPolygon: {Network: seald.NetworkPolygon, ChainID: "1337",
		Contract: "0x0000000000000000000000000000000000000001"}}
	// No caching of keys, businesses and projects in the Service (CacheTTL 0): what is under test is the
	// encoded answers the Servers hold, and any stale answer seen here is theirs.
	newService := func(st seald.Store) *service.Service {
		return &service.Service{Store: st, Secrets: secrets, PublicURL: "http://seald.test", Canonicalize: jcs.Canonicalize,
			Chains: chains}
	}
	svcA, svcB := newService(storeA), newService(storeB)
	server := func(svc *service.Service) http.Handler {
		return (&httpapi.Server{Service: svc, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			GatewayURL: "https://gw.example.test"}).Handler()
	}
	a, b := server(svcA), server(svcB)
	tn, err := svcA.CreateTenant(ctx, seald.Operator(), seald.TenantRequest{Business: "Acme", Project: "Docs"})
	if err != nil {
		t.Fatal(err)
	}
	caller, err := svcA.Authenticate(ctx, tn.SubscriptionKey, tn.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	r, err := svcA.Seal(ctx, caller, &seald.SealRequest{Network: seald.NetworkPolygon, Data: []byte(`{"never":"stale"}`),
		To: "alice@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	targets := []string{"/verification/api/v1/verify/reference?reference=" + url.QueryEscape(r.Reference),
		"/verification/api/v1/verify/hash?hash=" + r.Hash}
	get := func(h http.Handler, target string) string {
		t.Helper()
		req := httptest.NewRequest("GET", target, nil)
		req.Header.Set("Ocp-Apim-Subscription-Key", tn.SubscriptionKey)
		req.Header.Set("Api-Key", tn.APIKey)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", target, w.Code, w.Body)
		}
		return w.Body.String()
	}
	// check asks both instances twice (the second answer comes from what the first one encoded) and a fresh
	// Server, and returns the answer.
	check := func(step string) wire.Verification {
		t.Helper()
		var v wire.Verification
		for _, target := range targets {
			fresh := get(server(svcA), target)
			for name, h := range map[string]http.Handler{"A": a, "B": b} {
				for i := range 2 {
					if got := get(h, target); got != fresh {
						t.Errorf("%s: instance %s, answer %d to %s:\n%s\nwhere nothing held answers\n%s", step, name, i+1,
							target, got, fresh)
					}
				}
			}
			var env struct{ Data wire.Verification }
			if err := json.Unmarshal([]byte(fresh), &env); err != nil {
				t.Fatal(err)
			}
			v = env.Data
		}
		return v
	}
	if v := check("sealed"); v.Status != "ACTIVE" || v.Owner.Business.Name != "Acme" || v.ErasedTime != "" {
		t.Fatalf("sealed: %+v", v)
	}
	// Changes a second apart at least would show in updated_time alone; these come within the same second,
	// so that only the changed member tells.
	if _, err := svcA.SetStatus(ctx, caller, r.Reference, "SUSPENDED", "on hold"); err != nil {
		t.Fatal(err)
	}
	if v := check("suspended through A"); v.Status != "SUSPENDED" {
		t.Errorf("suspended: status %s", v.Status)
	}
	if _, err := svcB.SetStatus(ctx, caller, r.Reference, "ACTIVE", "resumed"); err != nil {
		t.Fatal(err)
	}
	if v := check("reactivated through B"); v.Status != "ACTIVE" {
		t.Errorf("reactivated: status %s", v.Status)
	}
	name := "Acme Renamed"
	if _, _, err := svcB.UpdateTenant(ctx, caller, seald.TenantUpdate{BusinessID: tn.Business.BusinessID, Name: &name}); err != nil {
		t.Fatal(err)
	}
	if v := check("business renamed through B"); v.Owner.Business.Name != name {
		t.Errorf("renamed: business %q", v.Owner.Business.Name)
	}
	if _, _, err := svcB.Erase(ctx, caller, r.Reference, "asked by the subject"); err != nil {
		t.Fatal(err)
	}
	if v := check("erased through B"); v.ErasedTime == "" {
		t.Errorf("erased: no erased_time in %+v", v)
	}
	if _, err := svcA.SetStatus(ctx, caller, r.Reference, "REVOKED", "withdrawn"); err != nil {
		t.Fatal(err)
	}
	if v := check("revoked through A"); v.Status != "REVOKED" {
		t.Errorf("revoked: status %s", v.Status)
	}
}

// freshPostgresSchema creates a schema of its own on the test server, dropped when the test ends, and
// returns a DSN whose search_path is that schema.
func freshPostgresSchema(t *testing.T, dsn string) string {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	name := "seald_test_" + hex.EncodeToString(b)
	exec := func(sql string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`CREATE SCHEMA ` + pgx.Identifier{name}.Sanitize())
	t.Cleanup(func() { exec(`DROP SCHEMA ` + pgx.Identifier{name}.Sanitize() + ` CASCADE`) })
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("search_path", name)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + name
}
