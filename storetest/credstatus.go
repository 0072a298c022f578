package storetest

import (
	"testing"
	"time"

	"seald.dev/seald"
)

var credentialStatusTests = []test{
	{"IndexAndStatuses", testCredentialStatuses},
}

// testCredentialStatuses: each record has a distinct, stable status index, and the statuses of an index range
// are the records' current ones, ACTIVE left out.
func testCredentialStatuses(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	var rs []*seald.Record
	idx := map[int64]*seald.Record{}
	for range 4 {
		r := newRecord(p, base)
		create(t, s, r)
		i, err := s.StatusIndex(ctx, r.Reference)
		ok(t, "StatusIndex", err)
		if idx[i] != nil || i < 0 {
			t.Fatalf("status index %d given twice or negative", i)
		}
		idx[i] = r
		rs = append(rs, r)
	}
	if _, err := s.StatusIndex(ctx, seald.NewReference(seald.PrefixAuthentication)); seald.ErrorCode(err) != seald.ENOTFOUND {
		t.Errorf("StatusIndex of an unknown record: %v, want ENOTFOUND", err)
	}
	change(t, s, rs[1], seald.StatusSuspended, base.Add(time.Minute))
	change(t, s, rs[2], seald.StatusRevoked, base.Add(time.Minute))
	change(t, s, rs[3], seald.StatusSuspended, base.Add(time.Minute))
	change(t, s, rs[3], seald.StatusActive, base.Add(2*time.Minute))
	got, err := s.StatusesBetween(ctx, 0, 1<<40)
	ok(t, "StatusesBetween", err)
	want := map[int64]seald.Status{}
	for i, r := range idx {
		if r.Status != seald.StatusActive {
			want[i] = r.Status
		}
	}
	equal(t, "StatusesBetween", got, want)
	i1, _ := s.StatusIndex(ctx, rs[1].Reference)
	got, err = s.StatusesBetween(ctx, i1, i1+1)
	ok(t, "StatusesBetween", err)
	equal(t, "StatusesBetween one index", got, map[int64]seald.Status{i1: seald.StatusSuspended})
}
