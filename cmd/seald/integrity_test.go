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
