package service_test

import (
	"testing"

	"seald.dev/seald"
)

// TestDisclosureRefusals: the package is the owner's only, and each state that cannot give one says so with
// its own code: another business 404, no caller 401, not anchored 409, sealed before selective disclosure
// 400, erased 410. The commitment is not computed at sealing but by the pipeline's store step (issue 45,
// pipeline's TestPipelineDisclosureOffRequestPath): until then the record is not anchored (409).
func TestDisclosureRefusals(t *testing.T) {
	e := newAuthorityEnv(t)
	ctx := t.Context()
	ref := e.pubRec.Reference
	stored, err := e.store.Record(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Disclosure != "" || stored.DataKey == "" {
		t.Fatalf("at sealing the record has commitment %q and data key %q, want none and one", stored.Disclosure, stored.DataKey)
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
	old.State = seald.StateCompleted // stored by a version before selective disclosure: its store step is long past
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
