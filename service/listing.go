package service

import (
	"context"
	"slices"
	"time"

	"seald.dev/seald"
)

// ListRecords returns a page of the caller's project's records, newest first, filtered as q says (its
// ProjectID is the caller's, whatever q holds): the console's list. A page holds q.Limit records (20 when
// not positive, at most MaxListLimit); the next page starts after the last one's reference, or after the
// page's Resume when it has one (a status or state filter examines at most ListWalk records a page: see
// Records.ListRecords). Only a project's caller may list: nobody and the operator are EUNAUTHORIZED.
func (s *Service) ListRecords(ctx context.Context, c *seald.Caller, q seald.RecordQuery) (*seald.RecordPage, error) {
	if err := projectCaller(c); err != nil {
		return nil, err
	}
	if q.Status != "" {
		if _, err := seald.ParseStatus(string(q.Status)); err != nil {
			return nil, err
		}
	}
	if q.State != "" && !knownState(q.State) {
		return nil, seald.Errorf(seald.EINVALID, "state must be one of PENDING, IPFS_STORED, ANCHOR_SUBMITTED, ANCHORED, EMAIL_SENT, COMPLETED, FAILED")
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		return nil, seald.Errorf(seald.EINVALID, "the date range is empty: its start (%s) must come before its end (%s)",
			q.Since.UTC().Format(time.RFC3339), q.Until.UTC().Format(time.RFC3339))
	}
	if q.After != "" {
		if err := seald.ParseReference(q.After); err != nil {
			return nil, err
		}
	}
	switch {
	case q.Limit <= 0:
		q.Limit = 20
	case q.Limit > seald.MaxListLimit:
		q.Limit = seald.MaxListLimit
	}
	q.ProjectID = c.Project.ProjectID
	q.Walk = seald.ListWalk
	return s.Store.ListRecords(ctx, q)
}

func knownState(st seald.State) bool {
	for _, s := range seald.States {
		if s == st {
			return true
		}
	}
	return false
}

// RecordStats counts the caller's project's records: by status and state, and sealed on each of the last
// days UTC days (today included; 1 to MaxStatsDays). Only a project's caller may ask.
func (s *Service) RecordStats(ctx context.Context, c *seald.Caller, days int) (*seald.RecordStats, error) {
	if err := projectCaller(c); err != nil {
		return nil, err
	}
	if days < 1 || days > seald.MaxStatsDays {
		return nil, seald.Errorf(seald.EINVALID, "days must be 1 to %d", seald.MaxStatsDays)
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
	st := &seald.RecordStats{ByStatus: n.ByStatus, ByState: n.ByState}
	for i, count := range n.PerDay {
		st.Days = append(st.Days, seald.DayCount{Day: bounds[i], Count: count})
	}
	for _, w := range seald.WaitingStates {
		st.Backlog += n.ByState[w]
	}
	// One more than the sample tells a day that had more.
	lat, err := s.Store.AnchorLatencies(ctx, c.Project.ProjectID, bounds, seald.LatencySample+1)
	if err != nil {
		return nil, err
	}
	for i, ds := range lat {
		d := seald.DayLatency{Day: bounds[i], Capped: len(ds) > seald.LatencySample}
		ds = ds[:min(len(ds), seald.LatencySample)]
		d.Count = len(ds)
		slices.Sort(ds)
		d.Median, d.P95 = seald.Percentile(ds, 50), seald.Percentile(ds, 95)
		st.Latency = append(st.Latency, d)
	}
	return st, nil
}
