package seald_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/jcs"
	"seald.dev/seald/secret"
	"seald.dev/seald/sqlite"
)

// The backlog bound is per network: records piling up on a stalled EOS (no pipeline runs here, so they wait
// in PENDING) refuse further EOS seals with EOVERLOADED, and never a POLYGON seal.
func TestBacklogPerNetwork(t *testing.T) {
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "seald.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	secrets, err := secret.Generate()
	if err != nil {
		t.Fatal(err)
	}
	chains := map[string]seald.Chain{
		seald.NetworkPolygon: {Network: seald.NetworkPolygon, ChainID: "1337", Contract: "0x0000000000000000000000000000000000000001"},
		seald.NetworkEOS:     {Network: seald.NetworkEOS, ChainID: "15557", Contract: "0x0000000000000000000000000000000000000002"},
	}
	service := func(maxBacklog int) *seald.Service {
		return &seald.Service{Store: st, Secrets: secrets, PublicURL: "http://seald.test", Canonicalize: jcs.Canonicalize,
			Chains: chains, MaxBacklog: maxBacklog}
	}
	svc := service(0)
	tn, err := svc.CreateTenant(t.Context(), seald.TenantRequest{Business: "Acme", Project: "Docs"})
	if err != nil {
		t.Fatal(err)
	}
	caller, err := svc.Authenticate(t.Context(), tn.SubscriptionKey, tn.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	seal := func(svc *seald.Service, network string, i int) error {
		_, err := svc.Seal(t.Context(), caller, &seald.SealRequest{Network: network,
			Data: fmt.Appendf(nil, `{"backlog":%d,"network":%q}`, i, network), To: "alice@example.com"})
		return err
	}
	for i := range 2 {
		if err := seal(svc, seald.NetworkEOS, i); err != nil {
			t.Fatal(err)
		}
	}

	bounded := service(2)
	for i := range 3 {
		if err := seal(bounded, seald.NetworkPolygon, i); err != nil {
			t.Fatalf("POLYGON seal %d with 2 EOS records waiting and a bound of 2: %v", i, err)
		}
	}
	if err := seal(bounded, seald.NetworkEOS, 9); seald.ErrorCode(err) != seald.EOVERLOADED {
		t.Errorf("EOS seal past EOS's backlog: %v, want %s", err, seald.EOVERLOADED)
	}
}
