package service_test

import (
	"fmt"
	"strings"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/jcs"
	"seald.dev/seald/service"
)

// The backlog bound is per network: records piling up on a stalled EOS (no pipeline runs here, so they wait
// in PENDING) refuse further EOS seals with EOVERLOADED, and never a POLYGON seal.
func TestBacklogPerNetwork(t *testing.T) {
	st, secrets := storeAndKeys(t)
	chains := map[string]seald.Chain{
		seald.NetworkPolygon: {Network: seald.NetworkPolygon, ChainID: "1337", Contract: "0x0000000000000000000000000000000000000001"},
		seald.NetworkEOS:     {Network: seald.NetworkEOS, ChainID: "15557", Contract: "0x0000000000000000000000000000000000000002"},
	}
	newService := func(maxBacklog int) *service.Service {
		return &service.Service{Store: st, Secrets: secrets, PublicURL: "http://seald.test", Canonicalize: jcs.Canonicalize,
			Chains: chains, MaxBacklog: maxBacklog}
	}
	svc := newService(0)
	caller := signUp(t, svc, seald.TenantRequest{Business: "Acme", Project: "Docs"})
	seal := func(svc *service.Service, network string, i int) error {
		_, err := svc.Seal(t.Context(), caller, &seald.SealRequest{Network: network,
			Data: fmt.Appendf(nil, `{"backlog":%d,"network":%q}`, i, network), To: "alice@example.com"})
		return err
	}
	for i := range 2 {
		if err := seal(svc, seald.NetworkEOS, i); err != nil {
			t.Fatal(err)
		}
	}

	bounded := newService(2)
	for i := range 3 {
		if err := seal(bounded, seald.NetworkPolygon, i); err != nil {
			t.Fatalf("POLYGON seal %d with 2 EOS records waiting and a bound of 2: %v", i, err)
		}
	}
	if err := seal(bounded, seald.NetworkEOS, 9); seald.ErrorCode(err) != seald.EOVERLOADED {
		t.Errorf("EOS seal past EOS's backlog: %v, want %s", err, seald.EOVERLOADED)
	}
}

// The backlog bound per project: with MaxProjectBacklog 2, a project with two records waiting is refused a
// third with EOVERLOADED while another project on the same network still seals, under a network bound that
// neither reaches.
func TestBacklogPerProject(t *testing.T) {
	st, secrets := storeAndKeys(t)
	newService := func(maxProjectBacklog int) *service.Service {
		return &service.Service{Store: st, Secrets: secrets, PublicURL: "http://seald.test", Canonicalize: jcs.Canonicalize,
			Chains:     devPolygon(),
			MaxBacklog: 100, MaxProjectBacklog: maxProjectBacklog}
	}
	svc := newService(0) // the counts are read once a second: the bounded service below reads them after the burst
	burst := signUp(t, svc, seald.TenantRequest{Business: "Burst", Project: "Docs"})
	quiet := signUp(t, svc, seald.TenantRequest{Business: "Quiet", Project: "Docs"})
	seal := func(svc *service.Service, c *seald.Caller, i int) error {
		_, err := svc.Seal(t.Context(), c, &seald.SealRequest{Network: seald.NetworkPolygon,
			Data: fmt.Appendf(nil, `{"project":%q,"i":%d}`, c.Project.ProjectID, i), To: "alice@example.com"})
		return err
	}
	for i := range 2 {
		if err := seal(svc, burst, i); err != nil {
			t.Fatal(err)
		}
	}
	bounded := newService(2)
	err := seal(bounded, burst, 2)
	if seald.ErrorCode(err) != seald.EOVERLOADED || !strings.Contains(seald.ErrorMessage(err), "a project") {
		t.Errorf("a third seal of a project with 2 waiting: %v, want %s naming the project's limit", err, seald.EOVERLOADED)
	}
	if err := seal(bounded, quiet, 0); err != nil {
		t.Errorf("another project's seal: %v", err)
	}
}
