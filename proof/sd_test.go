package proof

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"seald.dev/seald/jcs"
)

func TestDisclosureRoundTrip(t *testing.T) {
	data := []byte(`{"name":"Ada Lovelace","degree":"MSc","grades":{"math":19.5,"logic":18},"birthdate":"1815-12-10","tags":["a",{"x":1}]}`)
	canon, err := jcs.Canonicalize(data)
	if err != nil {
		t.Fatal(err)
	}
	secret := bytes.Repeat([]byte{7}, 32)
	sd, err := BuildSD(canon, secret)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := BuildSD(canon, secret)
	if again.Commitment != sd.Commitment {
		t.Fatal("the payload is not deterministic for one secret")
	}
	other, _ := BuildSD(canon, bytes.Repeat([]byte{8}, 32))
	if other.Commitment == sd.Commitment {
		t.Fatal("another secret gives the same commitment")
	}
	for _, v := range []string{"Ada", "MSc", "19.5", "1815", "math"} {
		if bytes.Contains(sd.Payload, []byte(v)) {
			t.Errorf("the payload holds %q: %s", v, sd.Payload)
		}
	}
	paths := map[string]bool{}
	for _, d := range sd.Disclosures {
		paths[d.Path] = true
	}
	for _, p := range []string{"/name", "/degree", "/grades", "/grades/math", "/grades/logic", "/birthdate", "/tags", "/tags/0", "/tags/1", "/tags/1/x"} {
		if !paths[p] {
			t.Errorf("no disclosure of %s (%v)", p, paths)
		}
	}
	pkg := &DisclosurePackage{Type: TypeDisclosurePackage, Version: DisclosureVersion, SDPayload: sd.Payload, Disclosures: sd.Disclosures,
		DisclosureAnchor: DisclosureAnchor{TokenID: "1", Root: "0x00"}}
	var ptrs []string
	for _, m := range []string{"name", "degree", "grades.math", "/tags/1"} {
		p, err := ParseMemberPath(m)
		if err != nil {
			t.Fatal(err)
		}
		ptrs = append(ptrs, p)
	}
	pr, err := pkg.Present(ptrs)
	if err != nil {
		t.Fatal(err)
	}
	rv, err := pr.Reveal()
	if err != nil {
		t.Fatal(err)
	}
	if rv.Commitment != sd.Commitment {
		t.Error("the revealed commitment is not the sealed one")
	}
	var got map[string]any
	_ = json.Unmarshal(rv.Members, &got)
	want := `{"degree":"MSc","grades":{"math":19.5},"name":"Ada Lovelace","tags":[{"x":1}]}`
	if string(rv.Members) != want {
		t.Errorf("revealed %s, want %s", rv.Members, want)
	}
	file, _ := json.Marshal(pr)
	decoded := string(file)
	for _, enc := range pr.Disclosures {
		b, _ := base64.RawURLEncoding.DecodeString(enc)
		decoded += string(b)
	}
	for _, hidden := range []string{"1815-12-10", "18", "logic", `"a"`} {
		if strings.Contains(decoded, hidden) {
			t.Errorf("the presentation holds hidden %s", hidden)
		}
	}
	for _, d := range sd.Disclosures {
		if d.Path == "/birthdate" || d.Path == "/grades/logic" {
			b, _ := base64.RawURLEncoding.DecodeString(d.Disclosure)
			var arr []any
			_ = json.Unmarshal(b, &arr)
			if strings.Contains(decoded, arr[0].(string)) {
				t.Errorf("the presentation holds the salt of %s", d.Path)
			}
		}
	}

	t.Run("altered value", func(t *testing.T) {
		bad := *pr
		bad.Disclosures = append([]string(nil), pr.Disclosures...)
		for i, enc := range bad.Disclosures {
			b, _ := base64.RawURLEncoding.DecodeString(enc)
			if strings.Contains(string(b), `"MSc"`) {
				bad.Disclosures[i] = base64.RawURLEncoding.EncodeToString(bytes.Replace(b, []byte("MSc"), []byte("PhD"), 1))
			}
		}
		if _, err := bad.Reveal(); !IsRefusal(err) {
			t.Errorf("an altered degree: %v", err)
		}
	})
	t.Run("altered payload", func(t *testing.T) {
		bad := *pr
		bad.SDPayload = bytes.Replace(pr.SDPayload, []byte(`"_sd":["`), []byte(`"_sd":["x`), 1)
		rv, err := bad.Reveal()
		if err == nil && rv.Commitment == sd.Commitment {
			t.Error("an altered payload keeps the commitment")
		}
	})
	t.Run("unknown member", func(t *testing.T) {
		if _, err := pkg.Present([]string{"/nope"}); !IsRefusal(err) {
			t.Errorf("a member the package lacks: %v", err)
		}
	})
}

// The commitments of known data are pinned: they are anchored on chain and checked by verifiers, so a change
// of how the payload is made (names with escapes, pointers with ~ and /, nested arrays, an empty object)
// must be seen here; and SDCommitment, which sealing runs, is BuildSD's commitment.
func TestSDCommitmentPinned(t *testing.T) {
	for _, c := range []struct{ data, commitment, disclosures string }{
		{`{"name":"Ada Lovelace","degree":"MSc","grades":{"math":19.5,"logic":18},"birthdate":"1815-12-10","tags":["a",{"x":1}]}`,
			"3ba5fd7c932cd7c38cc3232be4b588ff7f870d74d62be34b7378592557c12631",
			"1f8398b40958941a2fa09c08ce464e732af2694f1db100279cc1303164b80ca2"},
		{`{"a/b":{"c~d":[[],{},[1,[2,{"e\"f":null}]]]},"\u00e9":"\u20ac","x\\y":true,"":false,"n":-0.5e-7}`,
			"dad53540b8dee2c35e34fc255d5a752c70b5b3fe7a131e2a90232c5348aef717",
			"4b67b6125831ca58f3f57bce757b0168fc28d1eb29f49b77c2ac53e2a5260bbd"},
		{`{}`, "452f3318d56b49b60dc798007fde747611f8999b51264dfc2881c2076ff11a69",
			"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	} {
		canon, err := jcs.Canonicalize([]byte(c.data))
		if err != nil {
			t.Fatal(err)
		}
		secret := []byte("pinned secret")
		sd, err := BuildSD(canon, secret)
		if err != nil {
			t.Fatal(err)
		}
		// The disclosures, paths and strings, in their order, hashed into one figure.
		h := sha256.New()
		for _, d := range sd.Disclosures {
			h.Write([]byte(d.Path + "\x00" + d.Disclosure + "\x00"))
		}
		if got := hex.EncodeToString(sd.Commitment[:]); got != c.commitment {
			t.Errorf("%s: commitment %s, want %s", c.data, got, c.commitment)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != c.disclosures {
			t.Errorf("%s: disclosures hash to %s, want %s", c.data, got, c.disclosures)
		}
		if commitment, err := SDCommitment(canon, secret); err != nil || commitment != sd.Commitment {
			t.Errorf("%s: SDCommitment %x (%v), BuildSD %x", c.data, commitment, err, sd.Commitment)
		}
	}
	for _, bad := range []string{``, `[1]`, `{"a":1}x`, `{"a":}`, `{"a":1,}`} {
		if _, err := SDCommitment([]byte(bad), []byte("s")); err == nil {
			t.Errorf("SDCommitment(%q) did not fail", bad)
		}
	}
}

// FuzzPresentation: a presentation from anywhere is refused (an *Error) or revealed, never a panic; and
// whatever it reveals was committed in its payload (Reveal's commitment is the payload's).
func FuzzPresentation(f *testing.F) {
	canon, _ := jcs.Canonicalize([]byte(`{"a":{"b":[1,{"c":"d"}]},"e":"f"}`))
	sd, _ := BuildSD(canon, []byte("fuzz"))
	pkg := &DisclosurePackage{SDPayload: sd.Payload, Disclosures: sd.Disclosures,
		DisclosureAnchor: DisclosureAnchor{Network: "POLYGON", ChainID: "1", Contract: "0x1", TokenID: "1", Root: "0x1", TxHash: "0x1"}}
	pr, _ := pkg.Present([]string{"/a/b/1/c"})
	seed, _ := json.Marshal(pr)
	f.Add(seed)
	f.Add([]byte(`{"type":"seald-presentation","version":1}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePresentation(b)
		if err != nil {
			if !IsRefusal(err) {
				t.Fatalf("error %v is not a refusal", err)
			}
			return
		}
		rv, err := p.Reveal()
		if err != nil {
			if !IsRefusal(err) {
				t.Fatalf("error %v is not a refusal", err)
			}
			return
		}
		c, err := jcs.Canonicalize(bytes.TrimSpace(p.SDPayload))
		if err != nil || sha256.Sum256(c) != rv.Commitment {
			t.Fatalf("revealed a commitment that is not the payload's")
		}
	})
}

// BenchmarkBuildSD is the cost selective disclosure adds to a seal, beside the canonical hash every seal
// already pays ("hash": canonicalization and SHA-256), for a small record and a 64 KiB one.
func BenchmarkBuildSD(b *testing.B) {
	for _, size := range []int{1 << 10, 64 << 10} {
		canon, err := jcs.Canonicalize(jcs.Sample(size))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strconv.Itoa(size)+"B/hash", func(b *testing.B) {
			b.SetBytes(int64(len(canon)))
			for b.Loop() {
				c, _ := jcs.Canonicalize(canon)
				_ = sha256.Sum256(c)
			}
		})
		b.Run(strconv.Itoa(size)+"B/sd", func(b *testing.B) {
			b.SetBytes(int64(len(canon)))
			for b.Loop() {
				if _, err := BuildSD(canon, []byte("secret")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
