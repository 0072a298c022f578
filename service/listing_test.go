package service_test

import (
	"testing"
	"time"

	"seald.dev/seald"
)

// TestListRecords: a project's caller lists its own project's records only, whatever ProjectID it passes;
// nobody and the operator are refused; bad filters are EINVALID.
func TestListRecords(t *testing.T) {
	e := newAuthorityEnv(t)
	ctx := t.Context()
	got, err := e.svc.ListRecords(ctx, e.pub, seald.RecordQuery{ProjectID: e.priv.Project.ProjectID})
	if err != nil || len(got.Records) != 1 || got.Records[0].Reference != e.pubRec.Reference || got.Resume != "" {
		t.Fatalf("ListRecords of the PUBLIC project naming the other's project: %v, %v; want only its own record", got, err)
	}
	got, err = e.svc.ListRecords(ctx, e.priv, seald.RecordQuery{After: e.pubRec.Reference})
	if err != nil || len(got.Records) != 0 || got.Resume != "" {
		t.Errorf("ListRecords after another business's record: %v, %v; want an empty page", got, err)
	}
	for name, c := range map[string]*seald.Caller{"nobody": nil, "operator": seald.Operator()} {
		if _, err := e.svc.ListRecords(ctx, c, seald.RecordQuery{}); seald.ErrorCode(err) != seald.EUNAUTHORIZED {
			t.Errorf("ListRecords as %s: %v, want unauthorized", name, err)
		}
	}
	for name, q := range map[string]seald.RecordQuery{"status": {Status: "GONE"}, "state": {State: "DONE"}, "after": {After: "x"},
		"date range": {Since: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)}} {
		if _, err := e.svc.ListRecords(ctx, e.pub, q); seald.ErrorCode(err) != seald.EINVALID {
			t.Errorf("ListRecords with a bad %s: %v, want invalid", name, err)
		}
	}
	e.unchanged(t)
}

// TestRecordStats counts the caller's own project's records sealed today, by status and state, with its
// backlog; bad days are EINVALID, nobody is refused.
func TestRecordStats(t *testing.T) {
	e := newAuthorityEnv(t)
	st, err := e.svc.RecordStats(t.Context(), e.pub, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Days) != 7 || st.Days[6].Count != 1 || st.Days[0].Count != 0 || st.ByStatus[seald.StatusActive] != 1 ||
		st.ByState[seald.StatePending] != 1 || st.Backlog != 1 {
		t.Errorf("RecordStats: %+v", st)
	}
	if !st.Days[6].Day.Equal(st.Days[5].Day.AddDate(0, 0, 1)) {
		t.Errorf("days not consecutive: %v, %v", st.Days[5].Day, st.Days[6].Day)
	}
	if _, err := e.svc.RecordStats(t.Context(), e.pub, 0); seald.ErrorCode(err) != seald.EINVALID {
		t.Errorf("0 days: %v", err)
	}
	if _, err := e.svc.RecordStats(t.Context(), nil, 7); seald.ErrorCode(err) != seald.EUNAUTHORIZED {
		t.Errorf("nobody: %v", err)
	}
}
