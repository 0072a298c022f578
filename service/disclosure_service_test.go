package service_test

import (
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// TestDisclosureRefusals: the package is the owner's only, and each state that cannot give one says so with
// its own code: another business 404, no caller 401, not anchored 409, sealed before selective disclosure
// 400, erased 410. The commitment is stored with the record at sealing.
func TestDisclosureRefusals(t *testing.T) {
	e := newAuthorityEnv(t)
	ctx := t.Context()
	ref := e.pubRec.Reference
	stored, err := e.store.Record(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if !proof.IsHash(stored.Disclosure) || !proof.IsHash(stored.DisclosureBlind) || stored.Disclosure != e.pubRec.Disclosure {
		t.Fatalf("the record's commitment %q / blind %q is not stored", stored.Disclosure, stored.DisclosureBlind)
	}
	for _, c := range []struct {
		name   string
		caller *seald.Caller
		ref    string
		want   seald.Code
	}{
		{"another business", e.priv, ref, seald.ENOTFOUND},
		{"no caller", nil, ref, seald.EUNAUTHORIZED},
		{"not anchored", e.pub, ref, seald.ECONFLICT},
		{"bad reference", e.pub, "D-nope", seald.EINVALID},
	} {
		if _, err := e.svc.Disclosure(ctx, c.caller, c.ref, "pw"); seald.ErrorCode(err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
	old := *stored
	old.Reference, old.Disclosure, old.DisclosureBlind = seald.NewReference(seald.PrefixAuthentication), "", ""
	if err := e.store.CreateRecord(ctx, &old, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Disclosure(ctx, e.pub, old.Reference, "pw"); seald.ErrorCode(err) != seald.EINVALID {
		t.Errorf("a record sealed before selective disclosure: %v, want invalid", err)
	}
	if _, _, err := e.svc.Erase(ctx, e.pub, ref, "asked"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Disclosure(ctx, e.pub, ref, "pw"); seald.ErrorCode(err) != seald.EGONE {
		t.Errorf("an erased record: %v, want gone", err)
	}
}
