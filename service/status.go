package service

import (
	"context"

	"seald.dev/seald"
)

// Status returns a record's pipeline status to its owner (or the operator); nil is EUNAUTHORIZED.
func (s *Service) Status(ctx context.Context, c *seald.Caller, reference string) (*seald.Record, error) {
	return s.owned(ctx, c, reference)
}

// SetStatus changes a record's status for its owner, or for the operator (Operator), who may change any
// record; a nil caller is EUNAUTHORIZED. ACTIVE and SUSPENDED swap; either may become REVOKED, which is
// final. Setting the status a record already has changes nothing. A revocation is also sent to the chain by
// a job. A revocation always lands while others swap the record between ACTIVE and SUSPENDED: REVOKED may
// follow either, so a compare-and-set lost to such a swap is read again and tried again (up to
// maxRevokeAttempts), never handed back as a conflict.
func (s *Service) SetStatus(ctx context.Context, c *seald.Caller, reference, status, reason string) (*seald.Record, error) {
	r, _, err := s.ChangeStatus(ctx, c, reference, status, reason)
	return r, err
}

// maxRevokeAttempts bounds the compare-and-sets of one revocation. Each one lost means another writer
// changed the record in between; losing this many in a row takes clients flipping it without pause for the
// whole time, and the bound keeps even that from holding a request for ever.
const maxRevokeAttempts = 200

// ChangeStatus is SetStatus, also returning the change the store made: nil when the record already had the
// status. Under concurrent changes, the change returned is this call's own, from the status the store
// actually moved the record from.
func (s *Service) ChangeStatus(ctx context.Context, c *seald.Caller, reference, status, reason string) (*seald.Record, *seald.StatusChange, error) {
	if c == nil {
		return nil, nil, errNoCaller()
	}
	to, err := seald.ParseStatus(status)
	if err != nil {
		return nil, nil, err
	}
	if err := checkLength("reason", reason, seald.MaxReason); err != nil {
		return nil, nil, err
	}
	actor := c.Actor()
	for attempt := 0; ; attempt++ {
		r, err := s.owned(ctx, c, reference)
		if err != nil {
			return nil, nil, err
		}
		if r.Status == to {
			return r, nil, nil
		}
		if r.Status == seald.StatusRevoked {
			return nil, nil, seald.Errorf(seald.EINVALID, "status: record %s is REVOKED, which is final", reference)
		}
		now := s.now()
		var jobs []*seald.Job
		if to == seald.StatusRevoked {
			jobs = append(jobs, &seald.Job{Kind: seald.RevokeJob(r.Network), Reference: reference, RunAt: now})
		}
		ch := &seald.StatusChange{Reference: reference, From: r.Status, To: to, Actor: actor, Reason: reason, At: now}
		after := *r
		after.Status = to
		ch.Event = seald.NewEvent(seald.EventRecordStatusChanged, &after, now, map[string]string{"previous_status": string(r.Status), "reason": reason})
		err = s.Store.ChangeStatus(ctx, ch, r.Status, jobs...)
		if seald.ErrorCode(err) == seald.ECONFLICT && (attempt < 3 || to == seald.StatusRevoked && attempt < maxRevokeAttempts) {
			continue // changed under us: read it again and decide again
		}
		if err != nil {
			return nil, nil, err
		}
		r.Status, r.UpdatedAt = to, now
		if len(jobs) > 0 {
			s.wake()
		}
		return r, ch, nil
	}
}

// History returns a record's audit trail, its status changes in the order they were made, to its owner or
// the operator (Operator, any record); nil is EUNAUTHORIZED. Another caller gets the ENOTFOUND of a record
// it cannot see.
func (s *Service) History(ctx context.Context, c *seald.Caller, reference string) (*seald.Record, []*seald.StatusChange, error) {
	r, err := s.owned(ctx, c, reference)
	if err != nil {
		return nil, nil, err
	}
	trail, err := s.Store.AuditTrail(ctx, reference)
	return r, trail, err
}
