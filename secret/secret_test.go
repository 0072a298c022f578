package secret_test

import (
	"strings"
	"testing"

	"seald"
	"seald/secret"
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
		if ovi != good || seald.ParseReference(ref) != nil || !seald.IsHash(hash) {
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

// The secrets file keeps its format: what Marshal writes, Parse reads back to the same keys, and a file
// written before package secret existed (its member names) still loads.
func TestKeysFileRoundTrip(t *testing.T) {
	k, _ := secret.Generate()
	b, err := k.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, member := range []string{`"master_key"`, `"ovi_key"`, `"signing_seed"`} {
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
	for _, bad := range []string{``, `{}`, `{"master_key":"AAAA","ovi_key":"AAAA","signing_seed":"AAAA"}`} {
		if _, err := secret.Parse([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
