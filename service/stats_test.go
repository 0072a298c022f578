package service_test

import (
	"fmt"
	"testing"
	"time"

	"seald.dev/seald"
)

// TestRecordStatsLatency: the anchoring latency of the records anchored today, from the first
// LatencySample of them (the day is marked capped when there were more), and none for the other days.
func TestRecordStatsLatency(t *testing.T) {
	e := newAuthorityEnv(t)
	today := time.Now().UTC().Truncate(24 * time.Hour)
	var rs []*seald.Record
	for i := 1; i <= seald.LatencySample+1; i++ {
		anchored := today.Add(time.Duration(i) * time.Millisecond) // anchored in order of i
		r := &seald.Record{Reference: fmt.Sprintf("D-00000000-0000-4000-8000-%012d", i), Pipeline: seald.PipelinePolygon,
			BusinessID: e.pub.Business.BusinessID, ProjectID: e.pub.Project.ProjectID, Network: seald.NetworkPolygon,
			Hash: fmt.Sprintf("%064x", i), MimeType: "application/json", Privacy: seald.PrivacyPublic,
			Status: seald.StatusActive, State: seald.StateAnchored, CreatedAt: anchored.Add(-time.Duration(i) * time.Second),
			Reached: seald.StateTimes{Anchored: anchored}}
		r.UpdatedAt = anchored
		rs = append(rs, r)
	}
	if err := e.store.BulkInsertRecords(t.Context(), rs); err != nil {
		t.Fatal(err)
	}
	st, err := e.svc.RecordStats(t.Context(), e.pub, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Latency) != 3 || !st.Latency[2].Day.Equal(today) {
		t.Fatalf("Latency = %+v, want 3 days, today last", st.Latency)
	}
	want := seald.DayLatency{Day: today, Count: seald.LatencySample, Capped: true, Median: 1000 * time.Second, P95: 1900 * time.Second}
	if st.Latency[2] != want {
		t.Errorf("today's latency = %+v, want %+v", st.Latency[2], want)
	}
	if st.Latency[0].Count != 0 || st.Latency[0].Capped || st.Latency[0].Median != 0 {
		t.Errorf("latency of a day with none anchored = %+v", st.Latency[0])
	}
	// The other business's project sees none of them.
	other, err := e.svc.RecordStats(t.Context(), e.priv, 1)
	if err != nil || other.Latency[0].Count != 0 {
		t.Errorf("the other project's latency = %+v, %v; want none measured", other, err)
	}
}
