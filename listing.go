package seald

import (
	"context"
	"slices"
	"time"
)

// MaxListLimit bounds one page of ListRecords.
const MaxListLimit = 100

// ListWalk bounds how many records a page of ListRecords filtered by status or state examines
// (RecordQuery.Walk). Those filters are not in the index the list walks (records_project: project id,
// creation time), so a filter that matches few records would otherwise read the whole project's records to
// fill a page: seconds with a million. 5,000 records are read in a few milliseconds on either store; a page
// that finds fewer matches among them says where to resume (RecordPage.Resume).
const ListWalk = 5000

// ListRecords returns a page of the caller's project's records, newest first, filtered as q says (its
// ProjectID is the caller's, whatever q holds): the console's list. A page holds q.Limit records (20 when
// not positive, at most MaxListLimit); the next page starts after the last one's reference, or after the
// page's Resume when it has one (a status or state filter examines at most ListWalk records a page: see
// Records.ListRecords). Only a project's caller may list: nobody and the operator are EUNAUTHORIZED.
func (s *Service) ListRecords(ctx context.Context, c *Caller, q RecordQuery) (*RecordPage, error) {
	if err := projectCaller(c); err != nil {
		return nil, err
	}
	if q.Status != "" {
		if _, err := ParseStatus(string(q.Status)); err != nil {
			return nil, err
		}
	}
	if q.State != "" && !knownState(q.State) {
		return nil, Errorf(EINVALID, "state must be one of PENDING, IPFS_STORED, ANCHOR_SUBMITTED, ANCHORED, EMAIL_SENT, COMPLETED, FAILED")
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		return nil, Errorf(EINVALID, "the date range is empty: its start (%s) must come before its end (%s)",
			q.Since.UTC().Format(time.RFC3339), q.Until.UTC().Format(time.RFC3339))
	}
	if q.After != "" {
		if err := ParseReference(q.After); err != nil {
			return nil, err
		}
	}
	switch {
	case q.Limit <= 0:
		q.Limit = 20
	case q.Limit > MaxListLimit:
		q.Limit = MaxListLimit
	}
	q.ProjectID = c.Project.ProjectID
	q.Walk = ListWalk
	return s.Store.ListRecords(ctx, q)
}

// States are the pipeline states in order, FAILED last.
var States = []State{StatePending, StateIPFSStored, StateAnchorSubmitted, StateAnchored, StateEmailSent,
	StateCompleted, StateFailed}

func knownState(st State) bool {
	for _, s := range States {
		if s == st {
			return true
		}
	}
	return false
}

// RecordStats is a project's records at a glance: sealed per day, by status and state, and its backlog.
type RecordStats struct {
	Days     []DayCount // oldest first, today (UTC) last
	ByStatus map[Status]int
	ByState  map[State]int
	// Backlog counts the project's records still in the pipeline (WaitingStates).
	Backlog int
	// Latency is how long the records anchored on each day took from sealing to ANCHORED, oldest day first,
	// today (UTC) last: the same days as Days.
	Latency []DayLatency
}

// LatencySample bounds how many records of each day RecordStats reads for the anchoring latency: the first
// anchored that day. A busier day is measured on them alone (DayLatency.Capped), so the cost of the
// statistics never grows with the project.
const LatencySample = 2000

// DayLatency is how long the records anchored on one UTC day took from sealing (CreatedAt) to ANCHORED.
// Only records with a recorded ANCHORED time count (Record.Reached): none sealed before those times were
// kept.
type DayLatency struct {
	Day time.Time
	// Count is how many records were measured (at most LatencySample); Capped, that more were anchored
	// that day and were left out.
	Count  int
	Capped bool
	// Median and P95 are the nearest-rank 50th and 95th percentiles; zero when Count is 0.
	Median, P95 time.Duration
}

// DayCount is the records sealed on one UTC day.
type DayCount struct {
	Day   time.Time
	Count int
}

// MaxStatsDays bounds how many days RecordStats counts.
const MaxStatsDays = 90

// RecordStats counts the caller's project's records: by status and state, and sealed on each of the last
// days UTC days (today included; 1 to MaxStatsDays). Only a project's caller may ask.
func (s *Service) RecordStats(ctx context.Context, c *Caller, days int) (*RecordStats, error) {
	if err := projectCaller(c); err != nil {
		return nil, err
	}
	if days < 1 || days > MaxStatsDays {
		return nil, Errorf(EINVALID, "days must be 1 to %d", MaxStatsDays)
	}
	today := s.now().UTC().Truncate(24 * time.Hour)
	bounds := make([]time.Time, days+1)
	for i := range bounds {
		bounds[i] = today.AddDate(0, 0, i-days+1)
	}
	n, err := s.Store.CountProjectRecords(ctx, c.Project.ProjectID, bounds)
	if err != nil {
		return nil, err
	}
	st := &RecordStats{ByStatus: n.ByStatus, ByState: n.ByState}
	for i, count := range n.PerDay {
		st.Days = append(st.Days, DayCount{Day: bounds[i], Count: count})
	}
	for _, w := range WaitingStates {
		st.Backlog += n.ByState[w]
	}
	// One more than the sample tells a day that had more.
	lat, err := s.Store.AnchorLatencies(ctx, c.Project.ProjectID, bounds, LatencySample+1)
	if err != nil {
		return nil, err
	}
	for i, ds := range lat {
		d := DayLatency{Day: bounds[i], Capped: len(ds) > LatencySample}
		ds = ds[:min(len(ds), LatencySample)]
		d.Count = len(ds)
		slices.Sort(ds)
		d.Median, d.P95 = Percentile(ds, 50), Percentile(ds, 95)
		st.Latency = append(st.Latency, d)
	}
	return st, nil
}

// Percentile is the nearest-rank p-th percentile (0 < p <= 100) of sorted: the smallest value that at least
// p percent of them do not exceed; zero for none.
func Percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 * n)
	return sorted[min(max(rank, 1), len(sorted))-1]
}
