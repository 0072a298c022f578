package e2e

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald/evm/gethtest"
	"seald.dev/seald/proof"
)

// operator runs an operator command in-process and fails the test when it fails.
func operator(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(t.Context(), args, func(string) string { return "" }, &out, &errb); err != nil {
		t.Fatalf("seald %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// proofCLIErr is proofCLI with the standard error too, where the pin notes go.
func proofCLIErr(t *testing.T, args ...string) (string, string, int, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(t.Context(), append([]string{"proof", "verify"}, args...), func(string) string { return "" }, &out, &errb)
	return out.String(), errb.String(), exitCode(err), err
}

// sealBundle seals a record on in, waits for it to complete and returns its reference and proof bundle.
func sealBundle(t *testing.T, in *instance, data map[string]any) (string, []byte) {
	t.Helper()
	r := in.post(authPath, map[string]any{"data": data, "to": "a@example.com"})
	if r.Status != 201 {
		t.Fatalf("seal: %d %s", r.Status, r.Raw)
	}
	ref := str(r.Body, "data.reference")
	in.waitState(ref, "COMPLETED", 90*time.Second)
	code, b := fetch(t, in.URL+"/v/"+ref+"/proof.json")
	if code != 200 {
		t.Fatalf("proof of %s: %d %s", ref, code, b)
	}
	return ref, b
}

func parsedProof(t *testing.T, b []byte) *proof.Bundle {
	t.Helper()
	p, err := proof.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitChainPast waits until the wall clock has passed the time of the block holding the bundle's anchor: the
// embedded chain dates each block at least a second after the one before, so its clock may run ahead.
func waitChainPast(t *testing.T, rpc string, bundle []byte) {
	t.Helper()
	c, err := ethclient.DialContext(t.Context(), rpc)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h, err := c.HeaderByNumber(t.Context(), new(big.Int).SetUint64(parsedProof(t, bundle).BlockNumber))
	if err != nil {
		t.Fatal(err)
	}
	for time.Now().Unix() <= int64(h.Time)+1 {
		time.Sleep(100 * time.Millisecond)
	}
}

// signingKey reads a signing key by id from a secrets file in the clear.
func signingKey(t *testing.T, secretsPath, id string) ed25519.PrivateKey {
	t.Helper()
	var f struct {
		SigningKeys []struct {
			ID   string `json:"id"`
			Seed []byte `json:"seed"`
		} `json:"signing_keys"`
	}
	b, err := os.ReadFile(secretsPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, k := range f.SigningKeys {
		if k.ID == id {
			return ed25519.NewKeyFromSeed(k.Seed)
		}
	}
	t.Fatalf("no signing key %s in %s", id, secretsPath)
	return nil
}

// TestTrustKeyLifecycle: after `seald keys rotate --signing`, a bundle re-signed with the retired key for an
// anchor made after the rotation, its reference and CID swapped, exits 1 naming the key and its retirement
// (it exited 0 before keys had dates); a genuine bundle of the retired key for an earlier anchor still
// verifies; after `seald keys compromised`, no bundle of that key verifies, and the fresh bundle the service
// hands out (signed by the current key) does. The independent verifier agrees each time.
func TestTrustKeyLifecycle(t *testing.T) {
	t.Parallel() // its own serve, data dir and trust pins; it mostly waits on them
	dir := t.TempDir()
	rpcAddr := freePort(t)
	rpc := "http://" + rpcAddr
	in := startServe(t, dir, nil, "--chain-rpc-addr", rpcAddr)
	refA, savedA := sealBundle(t, in, map[string]any{"lifecycle": 1})
	oldID := parsedProof(t, savedA).KeyID
	waitChainPast(t, rpc, savedA)
	_, before := fetch(t, in.URL+trustRootSuffix)
	in.stop()
	operator(t, "keys", "rotate", "--signing", "--data-dir", dir)

	in = startServe(t, dir, nil, "--chain-rpc-addr", rpcAddr)
	_, bundleB := sealBundle(t, in, map[string]any{"lifecycle": 2})
	// Issue 44: a new bundle against the trust root saved before the rotation says why and how to refresh it.
	_, code, err := proofCLI(t, writeTemp(t, "b.json", bundleB), "--rpc", rpc, "--trust", writeTemp(t, "before.json", before))
	if code != exitInvalid || err == nil || !strings.Contains(err.Error(), "the trust root is older than the bundle's key") ||
		!strings.Contains(err.Error(), "seald trust export") || !strings.Contains(err.Error(), trustRootSuffix) {
		t.Errorf("a new bundle against the trust root from before the rotation: exit %d %v", code, err)
	}
	_, trustDoc := fetch(t, in.URL+trustRootSuffix)
	trust := writeTemp(t, "trust.json", trustDoc)
	retired := signingKey(t, filepath.Join(dir, "secrets.json"), oldID)
	pA := parsedProof(t, savedA)
	swap := func(p *proof.Bundle) { p.Reference, p.CID = pA.Reference, pA.CID }
	forged := writeTemp(t, "forged.json", resign(t, bundleB, retired, swap))
	_, code, err = proofCLI(t, forged, "--rpc", rpc, "--trust", trust)
	if code != exitInvalid || !strings.Contains(err.Error(), "signing key "+oldID+" was retired at") {
		t.Errorf("the forged bundle (retired key, anchor after the rotation): exit %d %v", code, err)
	}
	if icode, iout := independent(t, forged, "--rpc", rpc, "--trust", trust); icode != exitInvalid {
		t.Errorf("the independent verifier on the forged bundle: exit %d %s", icode, iout)
	}
	old := writeTemp(t, "old.json", savedA)
	if out, code, err := proofCLI(t, old, "--rpc", rpc, "--trust", trust); code != 0 {
		t.Errorf("the genuine bundle signed before the rotation: exit %d %q %v", code, out, err)
	}
	if icode, iout := independent(t, old, "--rpc", rpc, "--trust", trust); icode != 0 {
		t.Errorf("the independent verifier on the genuine old bundle: exit %d %s", icode, iout)
	}
	in.stop()

	out := operator(t, "keys", "compromised", oldID, "--data-dir", dir)
	if !strings.Contains(out, oldID+" is marked compromised") {
		t.Errorf("keys compromised printed %q", out)
	}
	in = startServe(t, dir, nil, "--chain-rpc-addr", rpcAddr)
	_, trustDoc = fetch(t, in.URL+trustRootSuffix)
	if !strings.Contains(string(trustDoc), `"status": "compromised"`) {
		t.Fatalf("the trust root does not list the compromised key:\n%s", trustDoc)
	}
	trust = filepath.Join(t.TempDir(), "exported.json") // as an operator hands it over
	operator(t, "trust", "export", "--url", in.URL, "--out", trust)
	_, code, err = proofCLI(t, old, "--rpc", rpc, "--trust", trust)
	if code != exitInvalid || !strings.Contains(err.Error(), "signing key "+oldID+" is marked compromised") {
		t.Errorf("a bundle of the compromised key: exit %d %v", code, err)
	}
	if icode, iout := independent(t, old, "--rpc", rpc, "--trust", trust); icode != exitInvalid {
		t.Errorf("the independent verifier on a bundle of the compromised key: exit %d %s", icode, iout)
	}
	_, freshA := fetch(t, in.URL+"/v/"+refA+"/proof.json")
	if p := parsedProof(t, freshA); p.KeyID == oldID {
		t.Errorf("the fresh bundle is still signed by the compromised key %s", oldID)
	}
	if out, code, err := proofCLI(t, writeTemp(t, "fresh.json", freshA), "--rpc", rpc, "--trust", trust); code != 0 {
		t.Errorf("the fresh bundle of the old record: exit %d %q %v", code, out, err)
	}
	var errb bytes.Buffer
	err = run(t.Context(), []string{"keys", "compromised", "0000000000000000", "--data-dir", dir}, func(string) string { return "" }, &bytes.Buffer{}, &errb)
	if err == nil || !strings.Contains(err.Error(), "no signing key") {
		t.Errorf("keys compromised of an unknown key: %v", err)
	}
}

// fund sends 1 ether from the geth dev account to addr and waits for it.
func fund(t *testing.T, g *gethtest.Geth, to *ecdsa.PrivateKey) {
	t.Helper()
	ctx := t.Context()
	c, err := ethclient.DialContext(ctx, g.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	nonce, err := c.PendingNonceAt(ctx, g.Address)
	if err != nil {
		t.Fatal(err)
	}
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	addr := crypto.PubkeyToAddress(to.PublicKey)
	tip := big.NewInt(1e9)
	tx, err := types.SignNewTx(g.Key, types.LatestSignerForChainID(g.ChainID), &types.DynamicFeeTx{ChainID: g.ChainID, Nonce: nonce,
		GasTipCap: tip, GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip), Gas: 21000, To: &addr, Value: big.NewInt(1e18)})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if r, err := c.TransactionReceipt(ctx, tx.Hash()); err == nil && r != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("funding transaction not mined")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func writeChainKey(t *testing.T, k *ecdsa.PrivateKey) string {
	t.Helper()
	return writeTemp(t, "chain.key", []byte(hex.EncodeToString(crypto.FromECDSA(k))))
}

// TestTrustContractHistoryAcrossRedeploy redeploys on a real geth node, as after a lost chain key: an
// instance seals on contract 1; the operator retires it at its last anchor's block (`seald trust
// retire-contract`) and starts with a new chain key, which deploys contract 2, and seals again. The new trust
// root lists both contracts with their ranges: both bundles verify (the first exited 1 before, "not the
// issuer's"), and a bundle of contract 1 for an anchor made after its range, by an instance still holding
// the old key, exits 1 naming the range.
func TestTrustContractHistoryAcrossRedeploy(t *testing.T) {
	t.Parallel() // it starts its own serve (and chain, browser) and mostly waits on them
	g := gethtest.Start(t, gethtest.Options{Period: 1})
	secrets := filepath.Join(t.TempDir(), "secrets.json")
	key1 := writeChainKey(t, g.Key)
	dirA := t.TempDir()
	start := func(dir, key, secretsFile string) *instance {
		return startServe(t, dir, nil, "--chain", g.URL, "--chain-key-file", key, "--secrets-file", secretsFile, "--batch-wait", "300ms")
	}
	a := start(dirA, key1, secrets)
	_, bundle1 := sealBundle(t, a, map[string]any{"contract": 1})
	p1 := parsedProof(t, bundle1)
	a.stop()
	stale := filepath.Join(t.TempDir(), "secrets.json") // an instance that was never told of the redeploy
	if b, err := os.ReadFile(secrets); err != nil || os.WriteFile(stale, b, 0o600) != nil {
		t.Fatal(err)
	}
	operator(t, "trust", "retire-contract", "--secrets-file", secrets, "--network", "POLYGON", "--chain-id", g.ChainID.String(),
		"--contract", p1.Contract, "--anchorer", g.Address.Hex(), "--to-block", strconv.FormatUint(p1.BlockNumber, 10))

	k2, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	fund(t, g, k2)
	b := start(t.TempDir(), writeChainKey(t, k2), secrets)
	_, bundle2 := sealBundle(t, b, map[string]any{"contract": 2})
	p2 := parsedProof(t, bundle2)
	if strings.EqualFold(p1.Contract, p2.Contract) {
		t.Fatalf("no new contract: both bundles name %s", p1.Contract)
	}
	_, trustDoc := fetch(t, b.URL+trustRootSuffix)
	trust := writeTemp(t, "trust.json", trustDoc)
	for name, bundle := range map[string][]byte{"the old contract's bundle": bundle1, "the new contract's bundle": bundle2} {
		path := writeTemp(t, "p.json", bundle)
		if out, code, err := proofCLI(t, path, "--rpc", g.URL, "--trust", trust); code != 0 {
			t.Errorf("%s: exit %d %q %v\ntrust root: %s", name, code, out, err, trustDoc)
		}
		if icode, iout := independent(t, path, "--rpc", g.URL, "--trust", trust); icode != 0 {
			t.Errorf("the independent verifier on %s: exit %d %s", name, icode, iout)
		}
	}

	// The old chain key anchors on the old contract after its range ended.
	a = start(dirA, key1, stale)
	_, bundle3 := sealBundle(t, a, map[string]any{"contract": 3})
	if p3 := parsedProof(t, bundle3); !strings.EqualFold(p3.Contract, p1.Contract) || p3.BlockNumber <= p1.BlockNumber {
		t.Fatalf("the late anchor is on %s in block %d", p3.Contract, p3.BlockNumber)
	}
	late := writeTemp(t, "late.json", bundle3)
	_, code, err := proofCLI(t, late, "--rpc", g.URL, "--trust", trust)
	want := "only in blocks 0 to " + strconv.FormatUint(p1.BlockNumber, 10)
	if code != exitInvalid || !strings.Contains(err.Error(), want) {
		t.Errorf("an anchor on the old contract after its range: exit %d %v, want %q", code, err, want)
	}
	if icode, iout := independent(t, late, "--rpc", g.URL, "--trust", trust); icode != exitInvalid {
		t.Errorf("the independent verifier on the late anchor: exit %d %s", icode, iout)
	}
}

// TestTrustPinning: `seald proof verify --trust URL` refuses plain http to another host, a redirect to
// another origin and a root whose issuer is not its origin; pins the first root it fetches, refuses a swapped
// one (not signed by the pinned root's key) with how to re-pin, and accepts the root after a key rotation,
// which the old key signs too. Before, each of these was followed and exited 0.
func TestTrustPinning(t *testing.T) {
	t.Parallel()              // its own serve, data dir and trust pins; it mostly waits on them
	var target atomic.Value   // the serve the issuer's origin forwards to
	var override atomic.Value // a document served instead of the trust root, when set
	override.Store([]byte(nil))
	issuer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if doc := override.Load().([]byte); doc != nil && r.URL.Path == trustRootSuffix {
			_, _ = w.Write(doc)
			return
		}
		resp, err := http.Get(target.Load().(string) + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	defer issuer.Close()
	dir := t.TempDir()
	rpcAddr := freePort(t)
	rpc := "http://" + rpcAddr
	in := startServe(t, dir, nil, "--chain-rpc-addr", rpcAddr, "--public-url", issuer.URL)
	target.Store(in.URL)
	_, bundle := sealBundle(t, in, map[string]any{"pin": 1})
	path := writeTemp(t, "p.json", bundle)
	pins := t.TempDir()
	trustURL := issuer.URL + trustRootSuffix
	verify := func(args ...string) (string, string, int, error) {
		return proofCLIErr(t, append([]string{path, "--rpc", rpc, "--trust-pin-dir", pins}, args...)...)
	}

	out, errs, code, err := verify("--trust", trustURL)
	if code != 0 || !strings.Contains(out, "the issuer "+issuer.URL+" (trust root fetched from "+trustURL+")") || !strings.Contains(errs, "pinned the trust root") {
		t.Fatalf("first fetch: exit %d %q %q %v", code, out, errs, err)
	}
	t.Run("plain http to another host", func(t *testing.T) {
		_, _, code, err := verify("--trust", "http://seal.example"+trustRootSuffix)
		if code != exitUnchecked || !strings.Contains(err.Error(), "https") {
			t.Errorf("exit %d %v", code, err)
		}
	})
	t.Run("redirect to another origin", func(t *testing.T) {
		redirect := httptest.NewServer(http.RedirectHandler(trustURL, http.StatusFound))
		defer redirect.Close()
		_, _, code, err := verify("--trust", redirect.URL+trustRootSuffix)
		if code != exitUnchecked || !strings.Contains(err.Error(), "redirects to another origin, "+issuer.URL) {
			t.Errorf("exit %d %v", code, err)
		}
	})
	t.Run("issuer that is not the origin", func(t *testing.T) {
		_, _, code, err := verify("--trust", in.URL+trustRootSuffix) // serve's own address; the root names issuer.URL
		if code != exitUnchecked || !strings.Contains(err.Error(), `names the issuer "`+issuer.URL+`"`) {
			t.Errorf("exit %d %v", code, err)
		}
	})
	t.Run("swapped root not signed by the pinned key", func(t *testing.T) {
		forger := newEdKey(t)
		_, genuine := fetch(t, trustURL)
		var doc map[string]any
		_ = json.Unmarshal(genuine, &doc)
		doc["keys"] = []any{map[string]any{"key_id": proof.KeyID(keyOf(forger)), "algorithm": "Ed25519", "public_key": b64(forger), "status": "current"}}
		delete(doc, "signatures")
		raw, _ := json.Marshal(doc)
		d, err := proof.TrustRootDigest(raw)
		if err != nil {
			t.Fatal(err)
		}
		doc["signatures"] = []any{map[string]any{"key_id": proof.KeyID(keyOf(forger)), "signature": base64.StdEncoding.EncodeToString(ed25519.Sign(forger, d[:]))}}
		swapped, _ := json.Marshal(doc)
		override.Store(swapped)
		defer override.Store([]byte(nil))
		forged := writeTemp(t, "forged.json", resign(t, bundle, forger, func(p *proof.Bundle) { p.Reference = "D-00000000-0000-4000-8000-000000000001" }))
		_, _, code, err := proofCLIErr(t, forged, "--rpc", rpc, "--trust-pin-dir", pins, "--trust", trustURL)
		if code != exitUnchecked || !strings.Contains(err.Error(), "may have been swapped") || !strings.Contains(err.Error(), "--trust-repin") {
			t.Errorf("a swapped root: exit %d %v", code, err)
		}
		if _, errs, code, err := proofCLIErr(t, forged, "--rpc", rpc, "--trust-pin-dir", pins, "--trust", trustURL, "--trust-repin"); code != 0 || !strings.Contains(errs, "re-pinned") {
			t.Errorf("--trust-repin of the swapped root: exit %d %q %v", code, errs, err)
		}
		override.Store([]byte(nil))
		if _, _, code, err := verify("--trust", trustURL, "--trust-repin"); code != 0 {
			t.Fatalf("re-pinning the genuine root: exit %d %v", code, err)
		}
	})
	t.Run("rotation accepted", func(t *testing.T) {
		waitChainPast(t, rpc, bundle)
		in.stop()
		operator(t, "keys", "rotate", "--signing", "--data-dir", dir)
		in = startServe(t, dir, nil, "--chain-rpc-addr", rpcAddr, "--public-url", issuer.URL)
		target.Store(in.URL)
		out, errs, code, err := verify("--trust", trustURL)
		if code != 0 || !strings.Contains(errs, "changed since it was pinned; the new one is signed by key "+parsedProof(t, bundle).KeyID) {
			t.Errorf("after a rotation: exit %d %q %q %v", code, out, errs, err)
		}
		pinned, _ := os.ReadFile(filepath.Join(pins, pinName(issuer.URL)))
		if !strings.Contains(string(pinned), `"retired"`) {
			t.Errorf("the pin was not updated to the rotated root:\n%s", pinned)
		}
	})
}

// pinName is the file seald proof verify keeps an origin's pinned trust root in (cmd/seald's pinName): the
// origin with its punctuation replaced.
func pinName(origin string) string {
	return strings.NewReplacer("://", "_", ":", "_", "/", "_", "[", "", "]", "").Replace(origin) + ".json"
}
