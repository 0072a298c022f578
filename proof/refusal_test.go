package proof_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"seald.dev/seald/jcs"
	"seald.dev/seald/proof"
)

// refusal is one refusal the package makes: what provokes it, and the words its message must hold.
type refusal struct {
	name string
	err  func(t *testing.T) error
	want string
}

// checkRefusals runs each case: the error must be a refusal (*proof.Error) naming the problem.
func checkRefusals(t *testing.T, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.err(t)
			if err == nil || !proof.IsRefusal(err) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v (refusal %v), want a refusal saying %q", err, proof.IsRefusal(err), c.want)
			}
		})
	}
}

// without is the JSON of v with one member removed.
func without(t *testing.T, v any, member string) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, member)
	b, _ = json.Marshal(m)
	return b
}

// with is the JSON of v with one member set to the JSON raw.
func with(t *testing.T, v any, member, raw string) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m[member] = json.RawMessage(raw)
	b, _ = json.Marshal(m)
	return b
}

// TestBundleRefusals: every refusal of Parse and VerifySignature.
func TestBundleRefusals(t *testing.T) {
	s := newSigner(t)
	signed := func() *proof.Bundle {
		p := sampleProof(proof.Version)
		p.Sign(s)
		return p
	}
	verify := func(edit func(p *proof.Bundle)) func(t *testing.T) error {
		return func(t *testing.T) error {
			p := signed()
			edit(p)
			return p.VerifySignature()
		}
	}
	parse := func(b []byte) func(t *testing.T) error {
		return func(t *testing.T) error { _, err := proof.Parse(b); return err }
	}
	cases := []refusal{
		{"public key not base64", verify(func(p *proof.Bundle) { p.PublicKey = "!" }), "public key is not a base64 Ed25519 key"},
		{"public key too short", verify(func(p *proof.Bundle) { p.PublicKey = "AAAA" }), "public key is not a base64 Ed25519 key"},
		{"key id of another key", verify(func(p *proof.Bundle) { p.KeyID = strings.Repeat("0", 16) }), "does not name the bundle's public key"},
		{"signature not base64", verify(func(p *proof.Bundle) { p.Signature = "!" }), "signature is not a base64 Ed25519 signature"},
		{"signature of another bundle", verify(func(p *proof.Bundle) { p.TokenID = "8" }), "signature does not match the bundle"},
		{"not JSON", parse([]byte(`[]`)), "not a proof bundle: "},
		{"version 0", parse(with(t, signed(), "version", "0")), "proof bundle version 0 is not supported"},
		{"version 4", parse(with(t, signed(), "version", "4")), "proof bundle version 4 is not supported"},
		{"hash not hex", parse(with(t, signed(), "hash", `"`+strings.Repeat("AB", 32)+`"`)), "hash must be 64 lowercase hex digits"},
		{"token id not decimal", parse(with(t, signed(), "token_id", `"0x7"`)), `token_id "0x7" is not a decimal token id`},
	}
	for _, m := range []string{"reference", "hash", "network", "chain_id", "contract", "token_id", "leaf", "root", "tx_hash", "public_key", "signature"} {
		cases = append(cases, refusal{m + " missing", parse(without(t, signed(), m)), "proof bundle: " + m + " is missing"})
	}
	checkRefusals(t, cases)
}

// testRoot is a signed trust root document of one network, listing s as its current key.
func testRoot(t *testing.T, s testSigner) []byte {
	t.Helper()
	r := proof.TrustRoot{Version: proof.TrustRootVersion, Issuer: "https://seal.example",
		Keys: []proof.TrustKey{{KeyID: proof.KeyID(s.PublicKey()), Algorithm: "Ed25519",
			PublicKey: base64.StdEncoding.EncodeToString(s.PublicKey()), Status: "current"}},
		Networks: []proof.TrustNetwork{{Network: "POLYGON", ChainID: "137", Contracts: []proof.TrustContract{
			{Contract: "0x00000000000000000000000000000000000000aa", Anchorer: "0x00000000000000000000000000000000000000bb"}}}}}
	d := r.DigestForSigning()
	r.Signatures = []proof.TrustSignature{{KeyID: r.Keys[0].KeyID, Signature: base64.StdEncoding.EncodeToString(s.Sign(d[:]))}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// editRoot is doc decoded, edited and encoded again.
func editRoot(t *testing.T, doc []byte, edit func(r *proof.TrustRoot)) []byte {
	t.Helper()
	var r proof.TrustRoot
	if err := json.Unmarshal(doc, &r); err != nil {
		t.Fatal(err)
	}
	edit(&r)
	b, _ := json.Marshal(r)
	return b
}

// TestTrustRootRefusals: every refusal of TrustRootDigest, ParseTrustRoot, CheckSigned, Continues, Check,
// CheckAnchor and CheckChain.
func TestTrustRootRefusals(t *testing.T) {
	s, stranger := newSigner(t), newSigner(t)
	doc := testRoot(t, s)
	root, err := proof.ParseTrustRoot(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := root.CheckSigned(); err != nil {
		t.Fatal(err)
	}
	parse := func(b []byte) func(t *testing.T) error {
		return func(t *testing.T) error { _, err := proof.ParseTrustRoot(b); return err }
	}
	edited := func(edit func(r *proof.TrustRoot)) func(t *testing.T) error { return parse(editRoot(t, doc, edit)) }
	parsed := func(b []byte) *proof.TrustRoot {
		r, err := proof.ParseTrustRoot(b)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	now := time.Now()
	noCurrent := parsed(editRoot(t, doc, func(r *proof.TrustRoot) { r.Keys[0].Status, r.Keys[0].RetiredAt = "retired", &now }))
	strangers := parsed(testRoot(t, stranger))
	ten := uint64(10)
	ranged := parsed(editRoot(t, doc, func(r *proof.TrustRoot) {
		r.Networks[0].Contracts[0].FromBlock = 5
		r.Networks[0].Contracts[0].ToBlock = &ten
	}))
	bundle := func(edit func(p *proof.Bundle)) *proof.Bundle {
		p := sampleProof(proof.Version)
		p.Contract = "0x00000000000000000000000000000000000000aa"
		if edit != nil {
			edit(p)
		}
		p.Sign(s)
		return p
	}
	retiredAt := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	retired := parsed(editRoot(t, doc, func(r *proof.TrustRoot) { r.Keys[0].Status, r.Keys[0].RetiredAt = "retired", &retiredAt }))
	compromised := parsed(editRoot(t, doc, func(r *proof.TrustRoot) { r.Keys[0].Status, r.Keys[0].CompromisedAt = "compromised", &retiredAt }))
	checkRefusals(t, []refusal{
		{"digest of no JSON", func(t *testing.T) error { _, err := proof.TrustRootDigest([]byte("x")); return err }, "invalid character"},
		{"digest without a canonical form", func(t *testing.T) error { _, err := proof.TrustRootDigest([]byte(`{"x":1e400}`)); return err }, ""},
		{"not JSON", parse([]byte(`[]`)), "not a trust root document: "},
		{"version 1", edited(func(r *proof.TrustRoot) { r.Version = 1 }), "trust root version 1 is not supported"},
		{"no keys", edited(func(r *proof.TrustRoot) { r.Keys = nil }), "the trust root lists no keys or no networks"},
		{"no networks", edited(func(r *proof.TrustRoot) { r.Networks = nil }), "the trust root lists no keys or no networks"},
		{"key not Ed25519", edited(func(r *proof.TrustRoot) { r.Keys[0].Algorithm = "RSA" }), "is not a base64 Ed25519 public key"},
		{"key not base64", edited(func(r *proof.TrustRoot) { r.Keys[0].PublicKey = "!" }), "is not a base64 Ed25519 public key"},
		{"key id of another key", edited(func(r *proof.TrustRoot) { r.Keys[0].KeyID = strings.Repeat("0", 16) }), "does not name its public key"},
		{"retired without retired_at", edited(func(r *proof.TrustRoot) { r.Keys[0].Status = "retired" }), "has no retired_at"},
		{"unknown status", edited(func(r *proof.TrustRoot) { r.Keys[0].Status = "lost" }), `has status "lost"`},
		{"network without chain id", edited(func(r *proof.TrustRoot) { r.Networks[0].ChainID = "" }), "network POLYGON lacks its chain_id or contracts"},
		{"network without contracts", edited(func(r *proof.TrustRoot) { r.Networks[0].Contracts = nil }), "network POLYGON lacks its chain_id or contracts"},
		{"contract without anchorer", edited(func(r *proof.TrustRoot) { r.Networks[0].Contracts[0].Anchorer = "" }), "a contract of network POLYGON lacks"},
		{"contract with an empty range", edited(func(r *proof.TrustRoot) {
			r.Networks[0].Contracts[0].FromBlock = 11
			r.Networks[0].Contracts[0].ToBlock = &ten
		}), "a contract of network POLYGON lacks"},
		{"no canonical form", parse([]byte(strings.Replace(string(doc), `{`, `{"x":1e400,`, 1))), "trust root: "},
		{"signed root without current key", func(t *testing.T) error { return noCurrent.CheckSigned() }, "the trust root lists no current key"},
		{"not signed by its current key", func(t *testing.T) error {
			return parsed(editRoot(t, doc, func(r *proof.TrustRoot) { r.Signatures = nil })).CheckSigned()
		}, "the trust root is not signed by its current key"},
		{"pinned root without current key", func(t *testing.T) error { return root.Continues(noCurrent) }, "the pinned trust root lists no current key"},
		{"not signed by the pinned key", func(t *testing.T) error { return strangers.Continues(root) }, "the current key of the pinned trust root"},
		{"other chain", func(t *testing.T) error {
			_, err := root.Check(bundle(func(p *proof.Bundle) { p.ChainID = "1" }))
			return err
		}, "chain 1 and contract 0x00000000000000000000000000000000000000aa are not the issuer's (POLYGON: chain 137, contract"},
		{"block outside the range", func(t *testing.T) error {
			_, err := ranged.CheckAnchor("137", "0x00000000000000000000000000000000000000AA", 11)
			return err
		},
			"anchored for the issuer only in blocks 5 to 10, and this anchor is in block 11"},
		{"compromised key", func(t *testing.T) error { _, err := compromised.Check(bundle(nil)); return err }, "is marked compromised by the issuer since 2025-03-01T12:00:00Z"},
		{"key not listed", func(t *testing.T) error {
			p := sampleProof(proof.Version)
			p.Contract = "0x00000000000000000000000000000000000000aa"
			p.Sign(stranger)
			_, err := root.Check(p)
			return err
		}, "is not one the issuer lists"},
		{"anchor sent by another address", func(t *testing.T) error {
			m, err := root.Check(bundle(nil))
			if err != nil {
				t.Fatal(err)
			}
			return m.CheckChain(bundle(nil), "0x00000000000000000000000000000000000000cc", time.Now())
		}, "its anchoring transaction was sent by 0x00000000000000000000000000000000000000cc, not by the issuer's anchoring address"},
		{"retired key after its retirement", func(t *testing.T) error {
			m, err := retired.Check(bundle(nil))
			if err != nil {
				t.Fatal(err)
			}
			return m.CheckChain(bundle(nil), "0x00000000000000000000000000000000000000BB", retiredAt)
		}, "was retired at 2025-03-01T12:00:00Z"},
	})
}

// enc is the encoded disclosure of the JSON array arr, and its digest.
func enc(arr string) (string, string) {
	e := base64.RawURLEncoding.EncodeToString([]byte(arr))
	return e, proof.SDDigest(e)
}

// testPackage is the disclosure package of a small record, with its SD-JWT signed by s.
func testPackage(t *testing.T, s testSigner) *proof.DisclosurePackage {
	t.Helper()
	canon, err := jcs.Canonicalize([]byte(`{"name":"Ada","grades":{"math":19.5,"logic":18},"tags":["a","b"]}`))
	if err != nil {
		t.Fatal(err)
	}
	sd, err := proof.BuildSD(canon, []byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	commitment := "6f" + strings.Repeat("00", 31)
	pkg := &proof.DisclosurePackage{Type: proof.TypeDisclosurePackage, Version: proof.DisclosureVersion, Reference: "D-1",
		DisclosureAnchor: proof.DisclosureAnchor{Network: "POLYGON", ChainID: "137", Contract: "0x00000000000000000000000000000000000000aa",
			TokenID: "7", MerklePath: []string{"0x01"}, Root: "0x02", TxHash: "0x03", BlockNumber: 9},
		SDPayload: sd.Payload, Commitment: commitment, Disclosures: sd.Disclosures}
	jwt, err := proof.SignIssuerJWT(sd.Payload, "https://seal.example", time.Unix(1700000000, 0), pkg.DisclosureAnchor, commitment, s)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, d := range sd.Disclosures {
		all = append(all, d.Disclosure)
	}
	pkg.SDJWT = proof.JoinSDJWT(jwt, all)
	return pkg
}

// TestPresentationRefusals: every refusal of ParseMemberPath, Present, ParsePresentation,
// ParseDisclosurePackage and Reveal, the "given twice" and "referenced twice" ones included.
func TestPresentationRefusals(t *testing.T) {
	pkg := testPackage(t, newSigner(t))
	pr, err := pkg.Present([]string{"/name", "/grades/math"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pr.Reveal(); err != nil {
		t.Fatal(err)
	}
	path := func(s string) func(t *testing.T) error {
		return func(t *testing.T) error { _, err := proof.ParseMemberPath(s); return err }
	}
	parse := func(b []byte) func(t *testing.T) error {
		return func(t *testing.T) error { _, err := proof.ParsePresentation(b); return err }
	}
	parsePkg := func(b []byte) func(t *testing.T) error {
		return func(t *testing.T) error { _, err := proof.ParseDisclosurePackage(b); return err }
	}
	// reveal reveals a presentation of payload and disclosures.
	reveal := func(payload string, disclosures ...string) func(t *testing.T) error {
		return func(t *testing.T) error {
			p := *pr
			p.SDPayload, p.Disclosures = json.RawMessage(payload), disclosures
			_, err := p.Reveal()
			return err
		}
	}
	edited := func(edit func(p *proof.Presentation)) func(t *testing.T) error {
		return func(t *testing.T) error {
			p := *pr
			p.Disclosures = append([]string(nil), pr.Disclosures...)
			edit(&p)
			_, err := p.Reveal()
			return err
		}
	}
	member, memberDigest := enc(`["salt1","a",1]`)
	sameName, sameNameDigest := enc(`["salt2","a",2]`)
	element, elementDigest := enc(`["salt3",1]`)
	noName, noNameDigest := enc(`["salt4",1,2]`)
	const alg = `,"_sd_alg":"sha-256"}`
	cases := []refusal{
		{"empty member path", path("  "), "empty member path"},
		{"member path with an empty name", path("grades..math"), `member path "grades..math" has an empty name`},
		{"no such member", func(t *testing.T) error { _, err := pkg.Present([]string{"/nope"}); return err }, "the package has no member /nope"},
		{"presentation not JSON", parse([]byte(`[]`)), "not a presentation: "},
		{"presentation of another type", parse(with(t, pr, "type", `"seald-disclosure-package"`)), `not a presentation: type is "seald-disclosure-package"`},
		{"presentation version 2", parse(with(t, pr, "version", "2")), "presentation version 2 is not supported"},
		{"presentation token id not decimal", parse(with(t, pr, "token_id", `"x"`)), `presentation: token_id "x" is not a decimal token id`},
		{"presentation without payload", parse(without(t, pr, "sd_payload")), "presentation: sd_payload is missing"},
		{"package not JSON", parsePkg([]byte(`[]`)), "not a disclosure package: "},
		{"package of another type", parsePkg(with(t, pkg, "type", `"seald-presentation"`)), "not a disclosure package of version 1"},
		{"package without root", parsePkg(without(t, pkg, "root")), "disclosure package: sd_payload, token_id or root is missing"},
		{"payload not JSON", reveal(`{`), "presentation: sd_payload: "},
		{"payload not an object", reveal(`[1]`), "presentation: sd_payload is not a JSON object"},
		{"payload of another digest", reveal(`{"_sd":[],"_sd_alg":"sha-512"}`), `presentation: _sd_alg must be "sha-256"`},
		{"disclosure given twice", edited(func(p *proof.Presentation) { p.Disclosures = append(p.Disclosures, p.Disclosures[0]) }),
			"disclosure " + itoa(len(pr.Disclosures)+1) + " is given twice"},
		{"disclosure not base64url", reveal(`{"_sd":[]`+alg, "!"), "disclosure 1 is not base64url"},
		{"disclosure not an array", reveal(`{"_sd":[]`+alg, base64.RawURLEncoding.EncodeToString([]byte(`[1]`))), "disclosure 1 is not a JSON array of 2 or 3 elements"},
		{"disclosure with a salt not a string", reveal(`{"_sd":[]`+alg, base64.RawURLEncoding.EncodeToString([]byte(`[1,"a",2]`))), "disclosure 1: its salt is not a string"},
		{"disclosure not in the payload", edited(func(p *proof.Presentation) { p.Disclosures = append(p.Disclosures, member) }),
			"disclosure " + itoa(len(pr.Disclosures)+1) + " is not in the sealed payload"},
		{"disclosure referenced twice", reveal(`{"_sd":["`+memberDigest+`","`+memberDigest+`"]`+alg, member), "disclosure 1 is referenced twice by the payload"},
		{"_sd not an array", reveal(`{"_sd":1` + alg), `presentation: _sd at "" is not an array`},
		{"_sd with a number", reveal(`{"_sd":[1]` + alg), `presentation: _sd at "" holds a non-string digest`},
		{"element disclosure in an object", reveal(`{"_sd":["`+elementDigest+`"]`+alg, element), `a disclosure of an array element stands for a member of ""`},
		{"member name not a string", reveal(`{"_sd":["`+noNameDigest+`"]`+alg, noName), `a disclosure in "" has no valid member name`},
		{"member disclosed twice", reveal(`{"_sd":["`+memberDigest+`","`+sameNameDigest+`"]`+alg, member, sameName), `member "a" of "" is disclosed twice`},
		{"member disclosure in an array", reveal(`{"_sd":[],"l":[{"...":"`+memberDigest+`"}]`+alg, member), `a disclosure of a member stands for an element of "/l"`},
	}
	for _, m := range []string{"network", "chain_id", "contract", "token_id", "root", "tx_hash"} {
		cases = append(cases, refusal{"presentation without " + m, parse(without(t, pr, m)), "presentation: " + m + " is missing"})
	}
	checkRefusals(t, cases)
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestSDJWTRefusals: every refusal of CheckSDJWT and SignIssuerJWT.
func TestSDJWTRefusals(t *testing.T) {
	s := newSigner(t)
	pkg := testPackage(t, s)
	pr, err := pkg.Present([]string{"/grades/math"})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]ed25519.PublicKey{proof.KeyID(s.PublicKey()): s.PublicKey()}
	check := func(edit func(p *proof.Presentation) (commitment string)) func(t *testing.T) error {
		return func(t *testing.T) error {
			p := *pr
			p.Disclosures = append([]string(nil), pr.Disclosures...)
			commitment := pkg.Commitment
			if edit != nil {
				if c := edit(&p); c != "" {
					commitment = c
				}
			}
			ks := map[string]ed25519.PublicKey{}
			for k, v := range keys {
				ks[k] = v
			}
			_, err := p.CheckSDJWT(commitment, ks)
			return err
		}
	}
	if err := check(nil)(t); err != nil {
		t.Fatal(err)
	}
	jwt, _, _ := strings.Cut(pr.SDJWT, "~")
	seg := strings.Split(jwt, ".")
	withHeader := func(h string) string {
		return base64.RawURLEncoding.EncodeToString([]byte(h)) + "." + seg[1] + "." + seg[2] + "~"
	}
	checkRefusals(t, []refusal{
		{"not an SD-JWT", check(func(p *proof.Presentation) string { p.SDJWT = jwt; return "" }), "sd_jwt is not an SD-JWT without key binding"},
		{"key binding", check(func(p *proof.Presentation) string { p.SDJWT += "kb"; return "" }), "sd_jwt is not an SD-JWT without key binding"},
		{"not a compact JWS", check(func(p *proof.Presentation) string { p.SDJWT = seg[0] + "." + seg[1] + "~"; return "" }), "sd_jwt: the issuer JWT is not a compact JWS"},
		{"not base64url", check(func(p *proof.Presentation) string { p.SDJWT = "!." + seg[1] + "." + seg[2] + "~"; return "" }), "sd_jwt: the issuer JWT is not base64url"},
		{"not EdDSA", check(func(p *proof.Presentation) string { p.SDJWT = withHeader(`{"alg":"none"}`); return "" }), "sd_jwt: the issuer JWT is not EdDSA"},
		{"unlisted key", check(func(p *proof.Presentation) string {
			p.SDJWT = withHeader(`{"alg":"EdDSA","typ":"sd+jwt","kid":"0000000000000000"}`)
			return ""
		}), `sd_jwt: signed by key "0000000000000000", which the issuer does not list`},
		{"signature of another JWT", check(func(p *proof.Presentation) string {
			p.SDJWT = withHeader(`{"alg":"EdDSA","typ":"sd+jwt","kid":"` + proof.KeyID(s.PublicKey()) + `","x":1}`)
			return ""
		}), "sd_jwt: the issuer's signature does not match"},
		{"another payload", check(func(p *proof.Presentation) string {
			p.SDPayload = json.RawMessage(`{"_sd":[],"_sd_alg":"sha-256"}`)
			return ""
		}), "sd_jwt: its _sd digests are not the presentation's payload"},
		{"another token", check(func(p *proof.Presentation) string { p.TokenID = "8"; return "" }), `sd_jwt: its seald.token_id is "7", not the presentation's "8"`},
		{"another commitment", check(func(p *proof.Presentation) string { return strings.Repeat("ab", 32) }), "sd_jwt: its seald.commitment is"},
		{"other disclosures", check(func(p *proof.Presentation) string { p.Disclosures = p.Disclosures[:1]; return "" }), "sd_jwt: its disclosures are not the presentation's"},
		{"issuer JWT of no payload", func(t *testing.T) error {
			_, err := proof.SignIssuerJWT([]byte("x"), "https://seal.example", time.Now(), pkg.DisclosureAnchor, pkg.Commitment, s)
			return err
		}, "sd_payload: invalid character"},
	})
}

// TestSDBuilderRefusals: every refusal of BuildSD and SDCommitment, for data that is not one canonical object.
func TestSDBuilderRefusals(t *testing.T) {
	var cases []refusal
	for _, c := range []struct{ data, want string }{
		{``, "disclosure: the data is not an object"},
		{`[1]`, "disclosure: the data is not an object"},
		{`{"a":1}x`, "disclosure: bytes after the data"},
		{`{"a":}`, "disclosure: the data is not in canonical form"},
		{`{"a":1,}`, "disclosure: the data is not in canonical form"},
		{`{"a" 1}`, "disclosure: the data is not in canonical form"},
		{`{"a":[1`, "disclosure: the data is not in canonical form"},
		{`{"a":1`, "disclosure: the data is not in canonical form"},
		{`{"a\x":1}`, "disclosure: the data is not in canonical form"},
		{`{"a":"b`, "disclosure: the data is not in canonical form"},
		{`{"a`, "disclosure: the data is not in canonical form"},
	} {
		cases = append(cases,
			refusal{"BuildSD " + c.data, func(t *testing.T) error { _, err := proof.BuildSD([]byte(c.data), []byte("s")); return err }, c.want},
			refusal{"SDCommitment " + c.data, func(t *testing.T) error { _, err := proof.SDCommitment([]byte(c.data), []byte("s")); return err }, c.want})
	}
	checkRefusals(t, cases)
}

// TestIssuerRefusals: every refusal of the issuer block (issue 41), in a bundle and in an SD-JWT: its shape,
// a version that may not carry it, and each way a file is not signed by a domain's key.
func TestIssuerRefusals(t *testing.T) {
	s := newSigner(t)
	_, bizKey, _ := ed25519.GenerateKey(nil)
	_, otherKey, _ := ed25519.GenerateKey(nil)
	const did = "did:web:acme.example"
	kid := did + "#key-1"
	keys := map[string]ed25519.PublicKey{kid: bizKey.Public().(ed25519.PublicKey)}
	at := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	verified := func() *proof.Issuer {
		return &proof.Issuer{BusinessID: "B-1", Name: "Acme University", Status: proof.IssuerDomainVerified, DID: did, VerifiedAt: &at, KeyID: kid}
	}
	signed := func(iss *proof.Issuer, priv ed25519.PrivateKey) *proof.Bundle {
		p := sampleProof(proof.Version)
		p.SignAs(s, iss, priv)
		return p
	}
	good := signed(verified(), bizKey)
	if err := good.VerifySignature(); err != nil {
		t.Fatal(err)
	}
	if err := good.CheckIssuer(did, keys); err != nil {
		t.Fatal(err)
	}
	if got := proof.DescribeIssuer(good.Issuer); got != "Sealed by Acme University, acme.example, domain verified on 2026-11-29" {
		t.Errorf("DescribeIssuer = %q", got)
	}
	if got := proof.Domain("did:web:127.0.0.1%3A8443:dept"); got != "127.0.0.1:8443/dept" {
		t.Errorf("Domain = %q", got)
	}
	parse := func(b []byte) func(t *testing.T) error {
		return func(t *testing.T) error { _, err := proof.Parse(b); return err }
	}
	shape := func(edit func(i *proof.Issuer)) func(t *testing.T) error {
		return func(t *testing.T) error {
			i := verified()
			i.Signature = "c2ln"
			edit(i)
			return proof.CheckIssuerShape(i)
		}
	}
	copied := func(t *testing.T) error {
		// B's bundle, self-declared, with A's issuer block copied into it.
		b := signed(&proof.Issuer{BusinessID: "B-2", Name: "Impostor", Status: proof.IssuerSelfDeclared}, nil)
		b.TokenID = "8"
		b.Sign(s)
		b.Issuer = good.Issuer
		if err := b.VerifySignature(); err == nil {
			t.Error("the service's signature still matches a bundle with another business's issuer block")
		}
		return b.CheckIssuer(did, keys)
	}
	v2 := sampleProof(2)
	v2.Sign(s)
	selfDeclared := signed(&proof.Issuer{BusinessID: "B-2", Name: "Impostor", Status: proof.IssuerSelfDeclared}, nil)
	otherDomain := signed(func() *proof.Issuer {
		i := verified()
		i.DID, i.KeyID = "did:web:other.example", "did:web:other.example#key-1"
		return i
	}(), bizKey)
	byOtherKey := signed(verified(), otherKey)
	unlisted := signed(func() *proof.Issuer { i := verified(); i.KeyID = did + "#key-9"; return i }(), bizKey)

	// The SD-JWT form: an SD payload, signed for the business, then its claims edited.
	payload := []byte(`{"_sd":["abc"],"_sd_alg":"sha-256"}`)
	a := proof.DisclosureAnchor{Network: "POLYGON", ChainID: "137", Contract: "0xaa", TokenID: "7"}
	commitment := strings.Repeat("cd", 32)
	jwt, err := proof.SignIssuerJWTBy(payload, "https://seal.example", at, a, commitment, s, verified(), bizKey)
	if err != nil {
		t.Fatal(err)
	}
	pres := &proof.Presentation{DisclosureAnchor: a, SDPayload: payload, Disclosures: []string{}, SDJWT: proof.JoinSDJWT(jwt, nil)}
	if err := pres.CheckIssuer(did, commitment, keys); err != nil {
		t.Fatal(err)
	}
	if _, err := pres.CheckSDJWT(commitment, map[string]ed25519.PublicKey{proof.KeyID(s.PublicKey()): s.PublicKey()}); err != nil {
		t.Fatal(err)
	}
	otherToken := *pres
	otherToken.TokenID = "8"
	jwtOther, _ := proof.SignIssuerJWTBy(payload, "https://seal.example", at, a, strings.Repeat("ef", 32), s, verified(), bizKey)
	reSigned := *pres // a JWT for another commitment, presented as this one's
	reSigned.SDJWT = proof.JoinSDJWT(jwtOther, nil)
	jwtSelf, _ := proof.SignIssuerJWTBy(payload, "https://seal.example", at, a, commitment, s,
		&proof.Issuer{BusinessID: "B-2", Name: "Impostor", Status: proof.IssuerSelfDeclared}, nil)
	selfPres := *pres
	selfPres.SDJWT = proof.JoinSDJWT(jwtSelf, nil)
	jwtNone, _ := proof.SignIssuerJWT(payload, "https://seal.example", at, a, commitment, s)
	nonePres := *pres
	nonePres.SDJWT = proof.JoinSDJWT(jwtNone, nil)
	noJWT := *pres
	noJWT.SDJWT = ""

	checkRefusals(t, []refusal{
		{"version 3 without issuer", parse(without(t, good, "issuer")), "proof bundle: issuer is missing"},
		{"version 2 with issuer", parse(with(t, v2, "issuer", `{"business_id":"B","name":"N","status":"self-declared"}`)), "version 2 has no issuer member"},
		{"issuer without name", parse(with(t, good, "issuer", `{"business_id":"B","name":"","status":"self-declared"}`)), "business_id or name is missing"},
		{"unknown status", shape(func(i *proof.Issuer) { i.Status = "trusted" }), `status "trusted" is not`},
		{"verified without did:web", shape(func(i *proof.Issuer) { i.DID = "did:key:z6Mk" }), "is not a did:web DID"},
		{"verified without time", shape(func(i *proof.Issuer) { i.VerifiedAt = nil }), "has no verified_at"},
		{"key of another DID", shape(func(i *proof.Issuer) { i.KeyID = "did:web:other.example#key-1" }), "is not a key of did:web:acme.example"},
		{"verified without signature", shape(func(i *proof.Issuer) { i.Signature = "" }), "carries no signature by its key"},
		{"self-declared with a domain", shape(func(i *proof.Issuer) { i.Status = proof.IssuerSelfDeclared }), "a self-declared issuer names no domain"},
		{"version 2 bundle against a domain", func(t *testing.T) error { return v2.CheckIssuer(did, keys) }, "names no issuer: it is not signed by acme.example's key"},
		{"self-declared bundle against a domain", func(t *testing.T) error { return selfDeclared.CheckIssuer(did, keys) }, `sealed by "Impostor", a self-declared name`},
		{"another domain", func(t *testing.T) error { return otherDomain.CheckIssuer(did, keys) }, "not by did:web:acme.example"},
		{"key the document does not list", func(t *testing.T) error { return unlisted.CheckIssuer(did, keys) }, "which the DID document of did:web:acme.example does not list"},
		{"signed by another key", func(t *testing.T) error { return byOtherKey.CheckIssuer(did, keys) }, "does not match this file"},
		{"issuer block copied into another bundle", copied, "does not match this file"},
		{"signature not base64", func(t *testing.T) error {
			p := *good
			iss := *good.Issuer
			iss.Signature = "!"
			p.Issuer = &iss
			return p.CheckIssuer(did, keys)
		}, "signature is not a base64 Ed25519 signature"},
		{"presentation without sd_jwt", func(t *testing.T) error { return noJWT.CheckIssuer(did, commitment, keys) }, "carries no sd_jwt, so no issuer block"},
		{"presentation of another token", func(t *testing.T) error { return otherToken.CheckIssuer(did, commitment, keys) }, "sd_jwt: its seald.token_id"},
		{"SD-JWT of another commitment", func(t *testing.T) error { return reSigned.CheckIssuer(did, commitment, keys) }, "sd_jwt: its seald.commitment"},
		{"self-declared SD-JWT", func(t *testing.T) error { return selfPres.CheckIssuer(did, commitment, keys) }, "a self-declared name"},
		{"SD-JWT without issuer", func(t *testing.T) error { return nonePres.CheckIssuer(did, commitment, keys) }, "names no issuer"},
		{"SD-JWT issuer signed by another key", func(t *testing.T) error {
			j, _ := proof.SignIssuerJWTBy(payload, "https://seal.example", at, a, commitment, s, verified(), otherKey)
			p := *pres
			p.SDJWT = proof.JoinSDJWT(j, nil)
			return p.CheckIssuer(did, commitment, keys)
		}, "does not match this file"},
	})
}
