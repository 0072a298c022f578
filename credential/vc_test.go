package credential

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func testKey(t *testing.T) (Key, map[string]any) {
	t.Helper()
	pub, priv, _ := ed25519.GenerateKey(nil)
	did, _, err := DIDWeb("http://127.0.0.1:8080")
	if err != nil {
		t.Fatal(err)
	}
	if did != "did:web:127.0.0.1%3A8080" {
		t.Fatalf("did %s", did)
	}
	k := Key{VerificationMethod: did + "#k1", Sign: func(m []byte) []byte { return ed25519.Sign(priv, m) }}
	return k, DIDDocument(did, []VerificationKey{{ID: "k1", Public: pub}})
}

func diploma() map[string]any {
	var m map[string]any
	json.Unmarshal([]byte(`{"name":"Ada Lovelace","degree":"MSc Mathematics","university":"Example University",
		"graduated":"2024-06-30","grade":1.5,"credits":120,"honours":true,"note":null,
		"courses":[{"title":"Analysis","ects":10},{"title":"Algebra","ects":8.5}],"tab":"a\tb\nc"}`), &m)
	return m
}

func TestIssueVerify(t *testing.T) {
	k, doc := testKey(t)
	f := Facts{ID: "urn:seald:D-1", Issuer: "did:web:127.0.0.1%3A8080", ValidFrom: time.Unix(1700000000, 0), Claims: diploma(),
		Anchor: &Anchor{Network: "polygon", ChainID: "137", Contract: "0xabc", TokenID: "7", Transaction: "0xdef", BlockNumber: 9,
			ContentHash: "00", Leaf: "0x01", MerkleRoot: "0x02", MerklePath: []string{"0x03", "0x04"}},
		Status: []StatusEntry{{Purpose: PurposeRevocation, ListURL: "http://127.0.0.1:8080/credentials/status/revocation/0", Index: 5},
			{Purpose: PurposeSuspension, ListURL: "http://127.0.0.1:8080/credentials/status/suspension/0", Index: 5}}}
	vc, err := Issue(f, k, time.Unix(1700000100, 0))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(vc)
	if vm, err := Verify(b, ResolveIn(doc)); err != nil || vm != k.VerificationMethod {
		t.Fatalf("verify: %v %s", err, vm)
	}
	for name, change := range map[string]func(m map[string]any){
		"claim": func(m map[string]any) { m["credentialSubject"].(map[string]any)["degree"] = "PhD" },
		"nested": func(m map[string]any) {
			m["credentialSubject"].(map[string]any)["courses"].([]any)[0].(map[string]any)["ects"] = 11
		},
		"merkle": func(m map[string]any) {
			m["evidence"].([]any)[0].(map[string]any)["merklePath"] = []any{"0x04", "0x03"}
		},
		"validFrom":  func(m map[string]any) { m["validFrom"] = "2020-01-01T00:00:00Z" },
		"statusIdx":  func(m map[string]any) { m["credentialStatus"].([]any)[0].(map[string]any)["statusListIndex"] = "6" },
		"proofValue": func(m map[string]any) { m["proof"].(map[string]any)["created"] = "2020-01-01T00:00:00Z" },
	} {
		var m map[string]any
		json.Unmarshal(b, &m)
		change(m)
		c, _ := json.Marshal(m)
		if _, err := Verify(c, ResolveIn(doc)); err == nil {
			t.Errorf("%s: a changed credential verifies", name)
		}
	}
	// Another key of the same DID that the document does not list is refused.
	other, _ := testKey(t)
	vc2, _ := Issue(f, Key{VerificationMethod: f.Issuer + "#k2", Sign: other.Sign}, time.Now())
	b2, _ := json.Marshal(vc2)
	if _, err := Verify(b2, ResolveIn(doc)); err == nil {
		t.Error("a credential of an unlisted key verifies")
	}
}

func TestClaimRefusals(t *testing.T) {
	k, _ := testKey(t)
	for data, member := range map[string]string{
		`{"@context":"x"}`:        "/@context",
		`{"id":"S-1"}`:            "/id",
		`{"list":[{"type":"x"}]}`: "/list/0/type",
		`{"first name":"x"}`:      "/first name",
		`{"a:b":1}`:               "/a:b",
		`{"":1}`:                  "/",
		`{"bell":"\u0007"}`:       "/bell",
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatal(err)
		}
		_, err := Issue(Facts{Issuer: "did:web:x", Claims: m}, k, time.Now())
		var ce *ClaimError
		if !errors.As(err, &ce) || ce.Member != member {
			t.Errorf("%s: %v, want a refusal of %s", data, err, member)
		}
	}
}

func TestLoaderRefusesOtherContexts(t *testing.T) {
	_, err := Canonicalize(map[string]any{"@context": "https://example.com/ctx", "a": 1.0})
	if err == nil || !strings.Contains(err.Error(), "not one seald embeds") {
		t.Fatalf("an unknown context was loaded: %v", err)
	}
}

func TestBitstring(t *testing.T) {
	b := NewBitstring(ListSize)
	b.Set(0)
	b.Set(9)
	if b[0] != 0x80 || b[1] != 0x40 {
		t.Fatalf("bit order: % x", b[:2])
	}
	d, err := DecodeBitstring(b.Encode())
	if err != nil || len(d) != ListSize/8 || !d.Get(0) || !d.Get(9) || d.Get(1) {
		t.Fatalf("round trip: %v", err)
	}
	if _, err := DecodeBitstring("z123"); err == nil {
		t.Error("a base58 list decodes")
	}
}

func TestStatusListCredential(t *testing.T) {
	k, doc := testKey(t)
	bits := NewBitstring(ListSize)
	bits.Set(3)
	l := StatusList{URL: "http://127.0.0.1:8080/credentials/status/revocation/0", Issuer: "did:web:127.0.0.1%3A8080",
		Purpose: PurposeRevocation, Bits: bits, ValidFrom: time.Now(), TTL: time.Minute}
	c, err := l.Credential(k)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(c)
	if _, err := Verify(b, ResolveIn(doc)); err != nil {
		t.Fatal(err)
	}
}

func TestTokenStatuses(t *testing.T) {
	s := NewTokenStatuses(8)
	s.Set(0, TokenInvalid)
	s.Set(1, TokenSuspended)
	s.Set(5, TokenSuspended)
	if s[0] != 0x09 || s[1] != 0x08 {
		t.Fatalf("order: % x", s)
	}
	s.Set(1, TokenValid)
	if s.Get(1) != TokenValid || s.Get(0) != TokenInvalid {
		t.Fatal("set/get")
	}
	k, doc := testKey(t)
	jwt, err := StatusListToken("http://x/tsl/0", s, time.Now(), time.Minute, k.VerificationMethod, k.Sign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyJWT(jwt, TokenStatusType, ResolveIn(doc)); err != nil {
		t.Fatal(err)
	}
	sub, got, err := ParseStatusListToken(jwt)
	if err != nil || sub != "http://x/tsl/0" || got.Get(0) != TokenInvalid || got.Get(5) != TokenSuspended {
		t.Fatalf("parse: %v %s", err, sub)
	}
}

func TestSDJWTVC(t *testing.T) {
	k, doc := testKey(t)
	s, err := IssueSDJWTVC(SDJWTFacts{Issuer: "did:web:127.0.0.1%3A8080", Payload: []byte(`{"_sd":["abc"],"_sd_alg":"sha-256"}`),
		Disclosures: []string{"WyJzIiwibiIsInYiXQ"}, IssuedAt: time.Unix(5, 0), StatusURI: "http://x/tsl/0", StatusIndex: 3}, k)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(s, "~")
	if len(parts) != 3 || parts[2] != "" {
		t.Fatalf("form: %s", s)
	}
	p, err := VerifyJWT(parts[0], SDJWTVCType, ResolveIn(doc))
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	json.Unmarshal(p, &c)
	if c["vct"] != VCT || c["iss"] != "did:web:127.0.0.1%3A8080" || c["status"].(map[string]any)["status_list"].(map[string]any)["idx"] != 3.0 {
		t.Fatalf("claims: %v", c)
	}
}
