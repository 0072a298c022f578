package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"seald.dev/seald/proof"
)

// TestBatchManifestThroughBinary (issue 41, deliverable 6): records sealed together land in one batch; each
// bundle links to its batch's manifest; the manifest fetched over HTTP passes `seald proof verify --batch`
// (exit 0, saying how many tokens and nodes it counted), by URL and as a file; a manifest with a node added,
// a token dropped or another root is refused (exit 1).
func TestBatchManifestThroughBinary(t *testing.T) {
	t.Parallel()
	rpcAddr := freePort(t)
	rpc := "http://" + rpcAddr
	in := startServe(t, t.TempDir(), nil, "--chain-rpc-addr", rpcAddr)
	var refs []string
	for i := range 8 {
		r := in.post(authPath, map[string]any{"data": map[string]any{"manifest": i}, "to": "a@example.com"})
		if r.Status != 201 {
			t.Fatalf("seal: %d %s", r.Status, r.Raw)
		}
		refs = append(refs, str(r.Body, "data.reference"))
	}
	var link string
	var m *proof.BatchManifest
	var raw []byte
	for _, ref := range refs {
		in.waitState(ref, "COMPLETED", 90*time.Second)
		code, b := fetch(t, in.URL+"/v/"+ref+"/proof.json")
		if code != 200 {
			t.Fatalf("proof of %s: %d %s", ref, code, b)
		}
		p := parsedProof(t, b)
		if p.Manifest == "" || !strings.HasPrefix(p.Manifest, in.URL+"/batches/POLYGON/") {
			t.Fatalf("bundle of %s links to manifest %q", ref, p.Manifest)
		}
		code, mb := fetch(t, p.Manifest)
		if code != 200 {
			t.Fatalf("GET %s: %d %s", p.Manifest, code, mb)
		}
		got, err := proof.ParseManifest(mb)
		if err != nil {
			t.Fatal(err)
		}
		if got.Root != p.Root || got.TxHash != p.TxHash || got.BlockNumber != p.BlockNumber {
			t.Errorf("the manifest of %s's batch: root %s tx %s block %d; the bundle's %s %s %d", ref, got.Root, got.TxHash,
				got.BlockNumber, p.Root, p.TxHash, p.BlockNumber)
		}
		if m == nil || got.Count > m.Count {
			m, link, raw = got, p.Manifest, mb
		}
	}
	if m.Count < 2 {
		t.Fatalf("no batch of several records among 8 sealed at once: largest %d", m.Count)
	}
	trust := in.URL + trustRootSuffix
	out, code, err := proofCLI(t, "--batch", link, "--rpc", rpc, "--trust", trust, "--trust-pin-dir", t.TempDir())
	want := fmt.Sprintf("its %d tokens have %d content nodes and %d disclosure nodes", m.Count, m.Count, m.Count)
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("proof verify --batch %s: exit %d %v\n%s", link, code, err, out)
	}
	if out, code, err := proofCLI(t, "--batch", writeTemp(t, "manifest.json", raw), "--rpc", rpc, "--no-trust"); code != 0 {
		t.Errorf("proof verify --batch FILE: exit %d %v\n%s", code, err, out)
	}

	tampered := func(edit func(m *proof.BatchManifest)) string {
		var c proof.BatchManifest
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		edit(&c)
		b, _ := json.Marshal(c)
		return writeTemp(t, "tampered.json", b)
	}
	for name, edit := range map[string]func(m *proof.BatchManifest){
		"an extra node": func(m *proof.BatchManifest) {
			m.Tokens = append(m.Tokens, proof.ManifestToken{TokenID: m.FirstTokenID + uint64(m.Count), ContentNode: m.Tokens[0].ContentNode})
			m.Count++
		},
		"a token dropped":           func(m *proof.BatchManifest) { m.Tokens = m.Tokens[:len(m.Tokens)-1]; m.Count-- },
		"a disclosure node dropped": func(m *proof.BatchManifest) { m.Tokens[0].DisclosureNode = "" },
		"a changed root": func(m *proof.BatchManifest) {
			m.Root = "0x" + strings.Repeat("ab", 32)
		},
	} {
		out, code, err := proofCLI(t, "--batch", tampered(edit), "--rpc", rpc, "--no-trust")
		if code != 1 || err == nil || !strings.Contains(err.Error(), "NOT valid") {
			t.Errorf("%s: exit %d %v\n%s", name, code, err, out)
		}
	}
	if code, b := fetch(t, in.URL+"/batches/POLYGON/999999"); code != 404 {
		t.Errorf("the manifest of a token no batch holds: %d %s", code, b)
	}
}

// TestRetirementSameSecondThroughBinary (issue 41, deliverable 4): a bundle anchored just before `seald keys
// rotate --signing`, with no wait for the chain's clock (the embedded chain dates blocks ahead of the wall
// clock, so the anchor's block time is the retirement's second or later), still verifies against the trust
// root exported after the rotation, which lists the block the retired key covers; the wall-clock rule
// refused it.
func TestRetirementSameSecondThroughBinary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rpcAddr := freePort(t)
	rpc := "http://" + rpcAddr
	in := startServe(t, dir, nil, "--chain-rpc-addr", rpcAddr)
	_, saved := sealBundle(t, in, map[string]any{"retired": "same second"})
	old := parsedProof(t, saved)
	in.stop()
	out := operator(t, "keys", "rotate", "--signing", "--data-dir", dir)
	if !strings.Contains(out, "covers anchors up to block") {
		t.Errorf("keys rotate --signing read no chain head:\n%s", out)
	}
	in = startServe(t, dir, nil, "--chain-rpc-addr", rpcAddr)
	_, doc := fetch(t, in.URL+trustRootSuffix)
	root, err := proof.ParseTrustRoot(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range root.Keys {
		if k.KeyID == old.KeyID && (k.Status != "retired" || len(k.RetiredBlocks) != 1 || k.RetiredBlocks[0].Block < old.BlockNumber) {
			t.Errorf("the retired key in the trust root: %+v; the bundle's block %d", k, old.BlockNumber)
		}
	}
	trust := writeTemp(t, "trust.json", doc)
	if out, code, err := proofCLI(t, writeTemp(t, "old.json", saved), "--rpc", rpc, "--trust", trust); code != 0 {
		t.Errorf("the bundle anchored before the rotation: exit %d %v\n%s", code, err, out)
	}
}
