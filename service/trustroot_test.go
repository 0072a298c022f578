package service_test

import (
	"encoding/json"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/proof"
	"seald.dev/seald/secret"
	"seald.dev/seald/service"
)

// TestTrustRootSignedAcrossRotations: the service's trust root is signed by each key not compromised; after
// a rotation the new root continues the pinned one (signed by its current key), a root signed by a stranger
// does not, and once the pinned root's key is compromised nothing continues it. Retired contracts are listed
// with their range and the current one starts after them.
func TestTrustRootSignedAcrossRotations(t *testing.T) {
	k, err := secret.Generate()
	if err != nil {
		t.Fatal(err)
	}
	svc := &service.Service{Secrets: k, PublicURL: "https://seal.example/", Chains: map[string]seald.Chain{
		"POLYGON": {Network: "POLYGON", ChainID: "137", Contract: "0x00000000000000000000000000000000000000AA", Anchorer: "0x00000000000000000000000000000000000000BB"}}}
	served := func() *proof.TrustRoot {
		b, err := json.MarshalIndent(svc.TrustRoot(), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		r, err := proof.ParseTrustRoot(b)
		if err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
		if err := r.CheckSigned(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := served()
	if first.Issuer != "https://seal.example" || len(first.Keys) != 1 || first.Keys[0].CurrentFrom == nil {
		t.Errorf("first root: %+v", first)
	}
	if err := k.Rotate(false, true); err != nil {
		t.Fatal(err)
	}
	to := uint64(41)
	if err := k.RetireContract(seald.ContractRange{Network: "POLYGON", ChainID: "137", Contract: "0x00000000000000000000000000000000000000Cc",
		Anchorer: "0x00000000000000000000000000000000000000Dd", FromBlock: 3, ToBlock: &to}); err != nil {
		t.Fatal(err)
	}
	second := served()
	if err := second.Continues(first); err != nil {
		t.Errorf("the root after a rotation does not continue the pinned one: %v", err)
	}
	cs := second.Networks[0].Contracts
	if len(cs) != 2 || cs[0].FromBlock != 3 || *cs[0].ToBlock != 41 || cs[1].FromBlock != 42 || cs[1].ToBlock != nil {
		t.Errorf("contract history: %+v", cs)
	}
	if second.Keys[1].Status != "retired" || second.Keys[1].RetiredAt == nil {
		t.Errorf("the old key after the rotation: %+v", second.Keys[1])
	}
	forged := *second
	forged.Signatures = nil
	b, _ := json.Marshal(forged)
	stripped, _ := proof.ParseTrustRoot(b)
	if stripped.Continues(first) == nil || stripped.CheckSigned() == nil {
		t.Error("an unsigned root continues the pinned one")
	}
	if _, err := k.Compromise(first.Keys[0].KeyID); err != nil {
		t.Fatal(err)
	}
	third := served()
	if third.Continues(first) == nil {
		t.Error("a root continues a pinned one whose key is now compromised")
	}
	if err := third.Continues(second); err != nil {
		t.Errorf("the root after marking an old key compromised does not continue the one pinned before: %v", err)
	}
	if third.Keys[1].Status != "compromised" || third.Keys[1].CompromisedAt == nil {
		t.Errorf("the compromised key: %+v", third.Keys[1])
	}
	rotated, err := k.Compromise(third.Keys[0].KeyID)
	if err != nil || !rotated || k.SigningKeys()[0].ID == third.Keys[0].KeyID {
		t.Errorf("marking the current key compromised: rotated %v %v", rotated, err)
	}
}
