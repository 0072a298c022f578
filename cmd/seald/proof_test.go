package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestProofVerifyAgainstEmbeddedChain seals a record, takes its proof bundle, and checks it with `seald proof
// verify` against the embedded chain's JSON-RPC alone; tampered bundles and a revoked token are refused.
func TestProofVerifyAgainstEmbeddedChain(t *testing.T) {
	dir := t.TempDir()
	rpcAddr := freePort(t)
	in := startServe(t, dir, nil, "--chain-rpc-addr", rpcAddr)
	r := in.post(authPath, map[string]any{"data": map[string]any{"deed": "plot 7"}, "to": "a@example.com"})
	ref := str(r.Body, "data.reference")
	in.waitState(ref, "COMPLETED", 60*time.Second)
	answer := in.get(verifyBase + "reference?reference=" + ref + "&proof=1")
	if answer.Status != 200 {
		t.Fatalf("%d %s", answer.Status, answer.Raw)
	}
	rpc := "http://" + rpcAddr
	verify := func(t *testing.T, file []byte) (string, error) {
		t.Helper()
		path := filepath.Join(t.TempDir(), "proof.json")
		if err := os.WriteFile(path, file, 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		err := run(t.Context(), []string{"proof", "verify", path, "--rpc", rpc}, func(string) string { return "" }, &out, &errb)
		return out.String(), err
	}
	bundle, _ := json.Marshal(field(answer.Body, "data.proof"))
	edit := func(f func(p map[string]any)) []byte {
		var p map[string]any
		_ = json.Unmarshal(bundle, &p)
		f(p)
		b, _ := json.Marshal(p)
		return b
	}

	t.Run("the bundle and the whole answer verify", func(t *testing.T) {
		for _, file := range [][]byte{bundle, answer.Raw} {
			out, err := verify(t, file)
			if err != nil || !strings.HasPrefix(out, "ok:") {
				t.Fatalf("verify: %q %v", out, err)
			}
		}
	})
	for name, c := range map[string]struct {
		file []byte
		want string
	}{
		"changed hash":     {edit(func(p map[string]any) { p["hash"] = strings.Repeat("1", 64) }), "hash"},
		"wrong path":       {edit(func(p map[string]any) { p["merkle_path"] = []string{"0x" + strings.Repeat("ab", 32)} }), ""},
		"other chain":      {edit(func(p map[string]any) { p["chain_id"] = "137" }), "chain"},
		"other contract":   {edit(func(p map[string]any) { p["contract"] = "0x000000000000000000000000000000000000dEaD" }), ""},
		"not a bundle":     {[]byte(`{"hello":"world"}`), "bundle"},
		"forged signature": {edit(func(p map[string]any) { p["reference"] = "D-00000000-0000-4000-8000-000000000000" }), "signature"},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := verify(t, c.file)
			if err == nil {
				t.Fatalf("a tampered bundle verified: %q", out)
			}
			if !strings.Contains(strings.ToLower(err.Error()), c.want) {
				t.Errorf("error %q does not name %q", err, c.want)
			}
		})
	}
	t.Run("revoked token", func(t *testing.T) {
		put := in.callWith("PUT", updatePath, nil, map[string]any{"reference": ref, "status": "REVOKED"})
		if put.Status != 200 {
			t.Fatalf("%d %s", put.Status, put.Raw)
		}
		deadline := time.Now().Add(30 * time.Second)
		for field(in.get(verifyBase+"reference?reference="+ref).Body, "data.blockchain.revoked_on_chain") != true {
			if time.Now().After(deadline) {
				t.Fatal("revocation never reached the chain")
			}
			time.Sleep(50 * time.Millisecond)
		}
		_, err := verify(t, bundle)
		if err == nil || !strings.Contains(err.Error(), "revoked") {
			t.Errorf("a revoked token's bundle: %v", err)
		}
	})
}
