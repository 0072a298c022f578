package main

import (
	"context"
	"encoding/hex"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	ethcommon "github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald/evm/gethtest"
	"seald/evm/registry"
)

// chainRevoked asks the contract itself, through JSON-RPC, whether a token is revoked.
func chainRevoked(t *testing.T, rpcURL, contract string, token uint64) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reg := registry.NewSealRegistry()
	to := ethcommon.HexToAddress(contract)
	out, err := c.CallContract(ctx, ethereum.CallMsg{To: &to, Data: reg.PackIsRevoked(new(big.Int).SetUint64(token))}, nil)
	if err != nil {
		t.Fatalf("isRevoked(%d): %v", token, err)
	}
	revoked, err := reg.UnpackIsRevoked(out)
	if err != nil {
		t.Fatal(err)
	}
	return revoked
}

// revokeAtOnce seals a record and revokes it in the same breath, before its batch can have been mined, then
// waits for the record to complete and for its revocation to be confirmed: the contract must say revoked.
func revokeAtOnce(t *testing.T, in *instance, rpcURL string) {
	t.Helper()
	r := in.post(authPath, map[string]any{"data": map[string]any{"revoke": "at once", "n": strconv.FormatInt(time.Now().UnixNano(), 10)}, "to": "a@example.com"})
	if r.Status != 201 {
		t.Fatalf("seal: %d %s", r.Status, r.Raw)
	}
	ref := str(r.Body, "data.reference")
	if u := in.callWith("PUT", updatePath, nil, map[string]any{"reference": ref, "status": "REVOKED"}); u.Status != 200 {
		t.Fatalf("revoke: %d %s", u.Status, u.Raw)
	}
	in.waitState(ref, "COMPLETED", 90*time.Second)
	var proof *response
	deadline := time.Now().Add(90 * time.Second)
	for {
		proof = in.get(verifyBase + "reference?reference=" + ref + "&proof=1")
		if field(proof.Body, "data.blockchain.revoked_on_chain") == true || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if field(proof.Body, "data.blockchain.revoked_on_chain") != true {
		t.Fatalf("the revocation never reached the chain: %s\n%s", proof.Raw, in.logText())
	}
	token, err := strconv.ParseUint(str(proof.Body, "data.proof.token_id"), 10, 64)
	if err != nil {
		t.Fatalf("token id: %v in %s", err, proof.Raw)
	}
	if !chainRevoked(t, rpcURL, str(proof.Body, "data.proof.contract"), token) {
		t.Errorf("the contract says token %d of %s is not revoked", token, ref)
	}
}

// TestRevokeBeforeMinedEmbedded revokes records right after the 201 on the embedded chain.
func TestRevokeBeforeMinedEmbedded(t *testing.T) {
	rpcAddr := freePort(t)
	in := startServe(t, t.TempDir(), nil, "--chain-rpc-addr", rpcAddr, "--batch-wait", "1s")
	for range 3 {
		revokeAtOnce(t, in, "http://"+rpcAddr)
	}
}

// TestRevokeBeforeMinedGeth revokes records right after the 201 on geth mining a block a second, so the
// revocation is due while the batch transaction is sent and not yet mined.
func TestRevokeBeforeMinedGeth(t *testing.T) {
	g := gethtest.Start(t, gethtest.Options{Period: 1})
	keyFile := filepath.Join(t.TempDir(), "chain.key")
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(crypto.FromECDSA(g.Key))), 0o600); err != nil {
		t.Fatal(err)
	}
	in := startServe(t, t.TempDir(), nil, "--chain", g.URL, "--chain-key-file", keyFile, "--batch-wait", "300ms")
	for range 3 {
		revokeAtOnce(t, in, g.URL)
	}
}

// TestSameHashAnswersOldestActiveProof: when several records hold one hash, a verification by hash or by data
// answers the caller's own record, else the earliest anchored ACTIVE one, and says how many there are.
func TestSameHashAnswersOldestActiveProof(t *testing.T) {
	dir := t.TempDir()
	in := startServe(t, dir, nil)
	a := tenant(t, dir, "--business", "First Co", "--project", "P", "--privacy", "PUBLIC")
	b := tenant(t, dir, "--business", "Second Co", "--project", "P", "--privacy", "PUBLIC")
	data := map[string]any{"diploma": "same", "n": strconv.FormatInt(time.Now().UnixNano(), 10)}
	seal := func(keys map[string]string) string {
		r := in.call("POST", authPath, keys["subscription_key"], keys["api_key"], "application/json", map[string]any{"data": data, "to": "a@example.com"})
		if r.Status != 201 {
			t.Fatalf("seal: %d %s", r.Status, r.Raw)
		}
		ref := str(r.Body, "data.reference")
		deadline := time.Now().Add(60 * time.Second)
		for {
			st := in.call("GET", statusPath+"?reference="+ref, keys["subscription_key"], keys["api_key"], "", nil)
			if str(st.Body, "data.state") == "COMPLETED" {
				return ref
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s not COMPLETED: %s", ref, st.Raw)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	first := seal(a)
	second := seal(a)
	third := seal(b)
	hash := ""
	verify := func(sub, api string) (string, float64) {
		r := in.call("GET", "/verification/api/v1/verify/hash?hash="+hash, sub, api, "", nil)
		if r.Status != 200 {
			t.Fatalf("verify by hash: %d %s", r.Status, r.Raw)
		}
		n, _ := field(r.Body, "data.records_with_hash").(float64)
		return str(r.Body, "data.details.reference"), n
	}
	st := in.call("GET", statusPath+"?reference="+first, a["subscription_key"], a["api_key"], "", nil)
	hash = str(st.Body, "data.hash")

	if ref, n := verify(in.Sub, in.API); ref != first || n != 3 {
		t.Errorf("a third party got %s (%v records); want the earliest anchored %s of 3", ref, n, first)
	}
	if ref, _ := verify(b["subscription_key"], b["api_key"]); ref != third {
		t.Errorf("the owner of %s got %s; want its own record", third, ref)
	}
	if u := in.call("PUT", updatePath, a["subscription_key"], a["api_key"], "application/json", map[string]any{"reference": first, "status": "REVOKED"}); u.Status != 200 {
		t.Fatalf("revoke: %d %s", u.Status, u.Raw)
	}
	if ref, n := verify(in.Sub, in.API); ref != second || n != 3 {
		t.Errorf("with %s revoked a third party got %s (%v records); want the earliest ACTIVE %s", first, ref, n, second)
	}
	r := in.call("POST", "/verification/api/v1/verify/data", in.Sub, in.API, "application/json", map[string]any{"data": data})
	if got := str(r.Body, "data.details.reference"); r.Status != 200 || got != second {
		t.Errorf("verify by data: %d, got %s; want %s", r.Status, got, second)
	}
	if r := in.call("GET", "/verification/api/v1/verify/reference?reference="+second, in.Sub, in.API, "", nil); field(r.Body, "data.records_with_hash") != nil {
		t.Errorf("verify by reference carries records_with_hash: %s", r.Raw)
	}
}
