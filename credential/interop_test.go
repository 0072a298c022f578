package credential

import (
	"crypto/ed25519"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIndependentVerifier has tools/verify-vc (Digital Bazaar's vc, eddsa-rdfc-2022 cryptosuite and
// bitstring status list libraries) check a credential and its status lists served over HTTP with its DID
// document, so that the canonicalization of json-gold and of rdf-canonize are seen to agree on every kind of
// value a record holds. The whole binary is checked the same way by cmd/seald's credential tests.
func TestIndependentVerifier(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	var srv *httptest.Server
	lists := map[string][]byte{}
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		did, _, _ := DIDWeb(srv.URL)
		switch {
		case r.URL.Path == "/.well-known/did.json":
			json.NewEncoder(w).Encode(DIDDocument(did, []VerificationKey{{ID: "k1", Public: pub}}))
		case r.URL.Path == "/credentials/contexts/v1":
			b, _ := Context(ContextSeald)
			w.Write(b)
		case lists[r.URL.Path] != nil:
			w.Write(lists[r.URL.Path])
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	did, _, _ := DIDWeb(srv.URL)
	k := Key{VerificationMethod: did + "#k1", Sign: func(m []byte) []byte { return ed25519.Sign(priv, m) }}
	for _, p := range []string{PurposeRevocation, PurposeSuspension} {
		bits := NewBitstring(ListSize)
		if p == PurposeSuspension {
			bits.Set(42)
		}
		l := StatusList{URL: srv.URL + "/status/" + p, Issuer: did, Purpose: p, Bits: bits, ValidFrom: time.Now().Add(-time.Minute), TTL: time.Minute}
		c, err := l.Credential(k)
		if err != nil {
			t.Fatal(err)
		}
		lists["/status/"+p], _ = json.Marshal(c)
	}
	claims := diploma()
	claims["big"] = 9007199254740993.0 // beyond 2^53, within int64
	claims["small"] = 0.000001
	claims["neg"] = -3.0
	claims["e"] = 1e21
	claims["unicode"] = "Zoë – 学位 😀"
	claims["nested"] = map[string]any{"deep": []any{[]any{1.0, "x"}, map[string]any{}}, "empty": []any{}}
	claims["prénom"] = "Élodie"
	// Objects that cannot be read as claims are signed as JSON literals (@json).
	claims["customer"] = map[string]any{"id": 42.0, "@type": "x", "type": []any{"a", 1.5}, "nested": map[string]any{"id": "S-1", "bell": "\u0007"}}
	f := Facts{ID: "urn:seald:D-1", Issuer: did, ValidFrom: time.Now().Add(-time.Hour), Claims: claims,
		Anchor: &Anchor{Network: "polygon", ChainID: "137", Contract: "0xabc", TokenID: "7", Transaction: "0xdef", BlockNumber: 9,
			ContentHash: "00", Leaf: "0x01", MerkleRoot: "0x02", MerklePath: []string{"0x03"}},
		Status: []StatusEntry{{Purpose: PurposeRevocation, ListURL: srv.URL + "/status/revocation", Index: 42},
			{Purpose: PurposeSuspension, ListURL: srv.URL + "/status/suspension", Index: 42}}}
	vc, err := Issue(f, k, time.Now().Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "vc.json")
	b, _ := json.Marshal(vc)
	os.WriteFile(file, b, 0o600)
	out := runVerifyVC(t, "vc", file, "--base", srv.URL, "--allow-http-loopback")
	var res struct {
		Verified bool
		Error    string
		Statuses map[string]bool
	}
	if err := json.Unmarshal(out, &res); err != nil || !res.Verified {
		t.Fatalf("verify-vc: %s", out)
	}
	if res.Statuses[PurposeRevocation] || !res.Statuses[PurposeSuspension] {
		t.Fatalf("statuses: %s", out)
	}
	b = []byte(strings.Replace(string(b), "MSc Mathematics", "PhD Mathematics", 1))
	os.WriteFile(file, b, 0o600)
	if out := runVerifyVC(t, "vc", file, "--base", srv.URL, "--allow-http-loopback"); !strings.Contains(string(out), `"verified":false`) {
		t.Fatalf("a changed claim verifies: %s", out)
	}
}

func runVerifyVC(t *testing.T, args ...string) []byte {
	t.Helper()
	if _, err := os.Stat("../tools/verify-vc/node_modules/@digitalbazaar/vc"); err != nil {
		t.Fatalf("tools/verify-vc is not installed (npm ci in it; scripts/test.sh does): %v", err)
	}
	out, _ := exec.Command("node", append([]string{"../tools/verify-vc/verify.mjs"}, args...)...).CombinedOutput()
	return out
}
