package seald_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"seald.dev/seald"
)

// TestTimeline lists the states a record reached, in pipeline order, with the times recorded and without
// one (never a guessed time) for those a record sealed before the times were kept shows it passed.
func TestTimeline(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	type m = seald.Milestone
	var zero time.Time
	for _, tc := range []struct {
		name string
		r    seald.Record
		want []m
	}{
		{"new", seald.Record{State: seald.StatePending, CreatedAt: t0}, []m{{seald.StatePending, t0}}},
		{"completed with an e-mail, times kept", seald.Record{State: seald.StateCompleted, CreatedAt: t0, CID: "c", BatchID: 1,
			TokenID: 1, MessageID: "<m>", Reached: seald.StateTimes{IPFSStored: at(1), AnchorSubmitted: at(2), Anchored: at(3),
				EmailSent: at(4), Completed: at(4)}},
			[]m{{seald.StatePending, t0}, {seald.StateIPFSStored, at(1)}, {seald.StateAnchorSubmitted, at(2)},
				{seald.StateAnchored, at(3)}, {seald.StateEmailSent, at(4)}, {seald.StateCompleted, at(4)}}},
		{"completed without e-mail, times kept", seald.Record{State: seald.StateCompleted, CreatedAt: t0, CID: "c", BatchID: 1,
			TokenID: 1, Reached: seald.StateTimes{IPFSStored: at(1), AnchorSubmitted: at(2), Anchored: at(3), Completed: at(5)}},
			[]m{{seald.StatePending, t0}, {seald.StateIPFSStored, at(1)}, {seald.StateAnchorSubmitted, at(2)},
				{seald.StateAnchored, at(3)}, {seald.StateCompleted, at(5)}}},
		{"completed before the times were kept", seald.Record{State: seald.StateCompleted, CreatedAt: t0, CID: "c", BatchID: 1,
			TokenID: 1, MessageID: "<m>"},
			[]m{{seald.StatePending, t0}, {seald.StateIPFSStored, zero}, {seald.StateAnchorSubmitted, zero},
				{seald.StateAnchored, zero}, {seald.StateEmailSent, zero}, {seald.StateCompleted, zero}}},
		{"anchored across the migration", seald.Record{State: seald.StateAnchored, CreatedAt: t0, CID: "c", BatchID: 1, TokenID: 1,
			Reached: seald.StateTimes{Anchored: at(9)}},
			[]m{{seald.StatePending, t0}, {seald.StateIPFSStored, zero}, {seald.StateAnchorSubmitted, zero}, {seald.StateAnchored, at(9)}}},
		{"failed storing", seald.Record{State: seald.StateFailed, ErrorType: seald.ErrorTypeIPFS, CreatedAt: t0,
			Reached: seald.StateTimes{Failed: at(7)}},
			[]m{{seald.StatePending, t0}, {seald.StateFailed, at(7)}}},
		{"failed mailing, before the times were kept", seald.Record{State: seald.StateFailed, ErrorType: seald.ErrorTypeEmail,
			CreatedAt: t0, CID: "c", BatchID: 1, TokenID: 1},
			[]m{{seald.StatePending, t0}, {seald.StateIPFSStored, zero}, {seald.StateAnchorSubmitted, zero},
				{seald.StateAnchored, zero}, {seald.StateFailed, zero}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.Timeline(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Timeline() =\n%v\nwant\n%v", got, tc.want)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	s := func(n ...int) []time.Duration {
		out := make([]time.Duration, len(n))
		for i, v := range n {
			out[i] = time.Duration(v)
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	for _, tc := range []struct {
		sorted []time.Duration
		p      int
		want   time.Duration
	}{
		{nil, 50, 0},
		{s(7), 50, 7}, {s(7), 95, 7},
		{s(1, 2), 50, 1}, {s(1, 2), 95, 2},
		{s(1, 2, 3, 4), 50, 2},
		{s(hundred...), 50, 50}, {s(hundred...), 95, 95}, {s(hundred...), 100, 100},
	} {
		if got := seald.Percentile(tc.sorted, tc.p); got != tc.want {
			t.Errorf("Percentile(%d values, %d) = %d, want %d", len(tc.sorted), tc.p, got, tc.want)
		}
	}
}

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
