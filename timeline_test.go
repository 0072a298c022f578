package seald_test

import (
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
