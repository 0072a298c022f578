package secret_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/proof"
	"seald.dev/seald/secret"
)

func FuzzDecryptOVI(f *testing.F) {
	s, err := secret.Generate()
	if err != nil {
		f.Fatal(err)
	}
	good, err := s.EncryptOVI(seald.NewReference("I-"), strings.Repeat("ab", 32))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:40])
	f.Add("")
	f.Add("AQ")
	f.Fuzz(func(t *testing.T, ovi string) {
		ref, hash, err := s.DecryptOVI(ovi)
		if err != nil {
			if seald.ErrorCode(err) != seald.EINVALID {
				t.Fatalf("error %v is not EINVALID", err)
			}
			return
		}
		// Only an OVI sealed under this key opens: the fuzzer cannot forge one, so it must be ours.
		if ovi != good || seald.ParseReference(ref) != nil || !proof.IsHash(hash) {
			t.Fatalf("forged OVI %q opened to %s %s", ovi, ref, hash)
		}
	})
}

func TestOVIRoundTripAndTamper(t *testing.T) {
	s, _ := secret.Generate()
	other, _ := secret.Generate()
	ref, hash := seald.NewReference("D-"), strings.Repeat("0f", 32)
	ovi, err := s.EncryptOVI(ref, hash)
	if err != nil {
		t.Fatal(err)
	}
	gotRef, gotHash, err := s.DecryptOVI(ovi)
	if err != nil || gotRef != ref || gotHash != hash {
		t.Fatalf("round trip: %s %s %v", gotRef, gotHash, err)
	}
	if _, _, err := other.DecryptOVI(ovi); seald.ErrorCode(err) != seald.EINVALID {
		t.Errorf("foreign key opened the OVI: %v", err)
	}
	b := []byte(ovi)
	b[10] ^= 1
	if _, _, err := s.DecryptOVI(string(b)); seald.ErrorCode(err) != seald.EINVALID {
		t.Errorf("tampered OVI: %v", err)
	}
}

func TestEnvelopeRoundTrip(t *testing.T) {
	s, _ := secret.Generate()
	plain := []byte(`{"secret":"value"}`)
	env, err := s.SealEnvelope("D-1", plain)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), "secret") {
		t.Fatal("plaintext visible in the envelope")
	}
	got, err := s.OpenEnvelope("D-1", env)
	if err != nil || string(got) != string(plain) {
		t.Fatalf("open: %q %v", got, err)
	}
	if _, err := s.OpenEnvelope("D-2", env); err == nil {
		t.Error("an envelope opened under another reference")
	}
	other, _ := secret.Generate()
	if _, err := other.OpenEnvelope("D-1", env); err == nil {
		t.Error("an envelope opened under another master key")
	}
}

// The secrets file round-trips: what Marshal writes (version 2), Parse reads back to the same keys; a bad
// file is refused.
func TestKeysFileRoundTrip(t *testing.T) {
	k, _ := secret.Generate()
	b, err := k.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, member := range []string{`"version": 2`, `"master_keys"`, `"ovi_key"`, `"signing_keys"`} {
		if !strings.Contains(string(b), member) {
			t.Errorf("the file lacks %s:\n%s", member, b)
		}
	}
	back, err := secret.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	ovi, _ := k.EncryptOVI(seald.NewReference("D-"), strings.Repeat("ab", 32))
	if _, _, err := back.DecryptOVI(ovi); err != nil {
		t.Errorf("the parsed keys do not open an OVI of the originals: %v", err)
	}
	if !back.PublicKey().Equal(k.PublicKey()) {
		t.Error("the parsed signing key differs")
	}
	for _, bad := range []string{``, `{}`, `{"master_key":"AAAA","ovi_key":"AAAA","signing_seed":"AAAA"}`, `{"version":3}`} {
		if _, err := secret.Parse([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// A data dir made before key rotation (testdata/v1, written by seald at ab9c8e7) keeps working: its
// secrets file loads, its envelope and sealed subscription secret open, before and after rotating both keys
// and writing the file again; new envelopes carry the new key, and the old key still opens the old ones.
func TestKeysBeforeRotationStillOpen(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "v1", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	k, err := secret.Parse(read("secrets.json"))
	if err != nil {
		t.Fatal(err)
	}
	const ref = "D-00000000-0000-4000-8000-000000000001"
	check := func(k *secret.Keys, when string) {
		t.Helper()
		if got, err := k.OpenEnvelope(ref, read("envelope.bin")); err != nil || string(got) != `{"sealed":"before rotation"}` {
			t.Errorf("%s: the old envelope: %q %v", when, got, err)
		}
		if got, err := k.OpenString(string(read("sealed-string.txt")), "subscription"); err != nil || got != "sub-secret-123" {
			t.Errorf("%s: the old sealed string: %q %v", when, got, err)
		}
	}
	check(k, "as loaded")
	oldPub := k.PublicKey()
	before, _ := k.SealEnvelope(ref, []byte("sealed before the rotation"))
	if err := k.Rotate(true, true); err != nil {
		t.Fatal(err)
	}
	b, _ := k.Marshal()
	k, err = secret.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	check(k, "after rotation")
	if got, err := k.OpenEnvelope(ref, before); err != nil || string(got) != "sealed before the rotation" {
		t.Errorf("a version 2 envelope of the old master key after rotation: %q %v", got, err)
	}
	if k.PublicKey().Equal(oldPub) {
		t.Error("the signing key did not change")
	}
	keys := k.SigningKeys()
	if len(keys) != 2 || !keys[0].Current || keys[1].Current || !keys[1].Public.Equal(oldPub) || keys[1].Retired.IsZero() {
		t.Errorf("signing keys after rotation: %+v", keys)
	}
	after, _ := k.SealEnvelope(ref, []byte("sealed after"))
	old, _ := secret.Parse(read("secrets.json"))
	if _, err := old.OpenEnvelope(ref, after); err == nil {
		t.Error("the old master key opens an envelope sealed under the new one")
	}
	if got, err := k.OpenEnvelope(ref, after); err != nil || string(got) != "sealed after" {
		t.Errorf("new envelope: %q %v", got, err)
	}
}

// TestSecretsFileKeepsTrustHistory: a key marked compromised and a retired contract survive the secrets
// file, and a compromised key signs nothing more, the trust root included.
func TestSecretsFileKeepsTrustHistory(t *testing.T) {
	k, err := secret.Generate()
	if err != nil {
		t.Fatal(err)
	}
	first := k.SigningKeys()[0].ID
	if err := k.Rotate(false, true); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Compromise(first); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Compromise("0000000000000000"); err == nil {
		t.Error("an unknown key id was marked compromised")
	}
	to := uint64(99)
	c := seald.ContractRange{Network: "POLYGON", ChainID: "137", Contract: "0x00000000000000000000000000000000000000Aa",
		Anchorer: "0x00000000000000000000000000000000000000bB", ToBlock: &to}
	if err := k.RetireContract(c); err != nil {
		t.Fatal(err)
	}
	if err := k.RetireContract(seald.ContractRange{Network: "POLYGON", ChainID: "137", Contract: "0x1", Anchorer: c.Anchorer, ToBlock: &to}); err == nil {
		t.Error("a contract that is not an address was retired")
	}
	b, _ := k.Marshal()
	k, err = secret.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	keys := k.SigningKeys()
	if len(keys) != 2 || keys[1].ID != first || keys[1].Compromised.IsZero() || !keys[0].Compromised.IsZero() {
		t.Errorf("signing keys after reload: %+v", keys)
	}
	if sigs := k.SignAll([]byte("digest")); len(sigs) != 1 || sigs[0].KeyID != keys[0].ID {
		t.Errorf("SignAll with one key compromised: %+v", sigs)
	}
	if got := k.RetiredContracts(); len(got) != 1 || got[0].Contract != c.Contract || *got[0].ToBlock != 99 {
		t.Errorf("retired contracts after reload: %+v", got)
	}
}
