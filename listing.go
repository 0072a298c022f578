package seald

import "context"

// MaxListLimit bounds one page of ListRecords.
const MaxListLimit = 100

// ListRecords returns a page of the caller's project's records, newest first, filtered as q says (its
// ProjectID is the caller's, whatever q holds): the console's list. A page holds q.Limit records (20 when
// not positive, at most MaxListLimit); the next page starts after the last one's reference. Only a project's
// caller may list: nobody and the operator are EUNAUTHORIZED.
func (s *Service) ListRecords(ctx context.Context, c *Caller, q RecordQuery) ([]*Record, error) {
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
