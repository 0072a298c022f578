package service_test

import (
	"path/filepath"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/secret"
	"seald.dev/seald/service"
	"seald.dev/seald/sqlite"
)

// storeAndKeys opens a SQLite store in the test's temporary directory, closed at its end, and generates the
// service's keys: the parts every Service under test here is made of.
func storeAndKeys(t *testing.T) (*sqlite.Store, *secret.Keys) {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "seald.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	keys, err := secret.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return st, keys
}

// devPolygon is the one chain most tests configure: POLYGON on a development chain id, at a placeholder
// contract (nothing here talks to a chain).
func devPolygon() map[string]seald.Chain {
	return map[string]seald.Chain{seald.NetworkPolygon: {Network: seald.NetworkPolygon, ChainID: "1337",
		Contract: "0x0000000000000000000000000000000000000001"}}
}

// signUp creates a tenant as the operator and returns its caller, authenticated with the new keys.
func signUp(t *testing.T, svc *service.Service, req seald.TenantRequest) *seald.Caller {
	t.Helper()
	tn, err := svc.CreateTenant(t.Context(), seald.Operator(), req)
	if err != nil {
		t.Fatal(err)
	}
	c, err := svc.Authenticate(t.Context(), tn.SubscriptionKey, tn.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
