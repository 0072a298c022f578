package service

import (
	"context"
	"fmt"
	"strings"

	"seald.dev/seald"
)

// Erase erases a record's data for its owner, or for the operator (Operator), any record; a nil caller is
// EUNAUTHORIZED. A record another caller cannot see is ENOTFOUND; one already erased is returned as it is,
// with erased false.
func (s *Service) Erase(ctx context.Context, c *seald.Caller, reference, reason string) (r *seald.Record, erased bool, err error) {
	if c == nil {
		return nil, false, errNoCaller()
	}
	if strings.TrimSpace(reason) == "" {
		return nil, false, seald.Errorf(seald.EINVALID, "reason is required: say why the data is erased (it goes into the audit trail)")
	}
	if err := checkLength("reason", reason, seald.MaxReason); err != nil {
		return nil, false, err
	}
	if r, err = s.owned(ctx, c, reference); err != nil {
		return nil, false, err
	}
	return s.erase(ctx, r, c.Actor(), reason)
}

// erase erases r unless it is erased already, and returns the record as stored afterwards.
func (s *Service) erase(ctx context.Context, r *seald.Record, actor, reason string) (*seald.Record, bool, error) {
	if r.Erased() {
		return r, false, nil
	}
	now := s.now()
	if s.ErasureLog != nil {
		// Logged before the commit: a log line whose commit failed only erases again what was asked to be.
		if err := s.ErasureLog.Append(ctx, r.Reference, now); err != nil {
			return nil, false, fmt.Errorf("erasure log: %w", err)
		}
	}
	ch := &seald.StatusChange{Reference: r.Reference, Actor: actor, Reason: reason, At: now, Action: seald.ActionErase}
	erased, err := s.Store.EraseRecord(ctx, ch, &seald.Job{Kind: seald.JobErase, Reference: r.Reference, RunAt: now})
	if err != nil {
		return nil, false, err
	}
	s.crashPoint(seald.CrashAfterEraseSave)
	if erased {
		s.wake()
	}
	after, err := s.Store.Record(ctx, r.Reference)
	if err != nil {
		return nil, false, err
	}
	return after, erased, nil
}

// EraseExpired erases up to limit records whose project's retention period (Project.Retain) has passed
// since they were sealed, and returns how many it erased. Each erasure is its own transaction with its own
// job, so a crash midway loses nothing: the next sweep finds the records not erased yet.
func (s *Service) EraseExpired(ctx context.Context, limit int) (int, error) {
	refs, err := s.Store.RetentionDue(ctx, s.now(), limit)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, ref := range refs {
		r, err := s.Store.Record(ctx, ref)
		if err != nil {
			return n, err
		}
		p, err := s.Store.Project(ctx, r.ProjectID)
		if err != nil {
			return n, err
		}
		reason := "the project's retention period (" + seald.FormatRetention(p.Retain) + ") has passed"
		if _, ok, err := s.erase(ctx, r, seald.ActorRetention, reason); err != nil {
			return n, err
		} else if ok {
			n++
		}
	}
	return n, nil
}

// ReplayErasures erases again every record the erasure log lists that the database does not show erased: a
// database restored from a backup taken before those erasures. References of records the database does not
// hold are skipped. It returns how many records it erased.
func (s *Service) ReplayErasures(ctx context.Context) (int, error) {
	if s.ErasureLog == nil {
		return 0, nil
	}
	refs, err := s.ErasureLog.References(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, ref := range refs {
		r, err := s.Store.Record(ctx, ref)
		if seald.ErrorCode(err) == seald.ENOTFOUND {
			continue
		}
		if err != nil {
			return n, err
		}
		if r.Erased() {
			continue
		}
		ch := &seald.StatusChange{Reference: ref, Actor: seald.ActorErasureLog, At: s.now(), Action: seald.ActionErase,
			Reason: "erased again from the erasure log: the database did not show the erasure (restored from a backup?)"}
		ok, err := s.Store.EraseRecord(ctx, ch, &seald.Job{Kind: seald.JobErase, Reference: ref, RunAt: ch.At})
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	if n > 0 {
		s.wake()
	}
	return n, nil
}

// ErasedCID answers EGONE when cid is the stored copy of an erased record, for the IPFS gateway; nil
// otherwise (an unknown CID is the gateway's to answer).
func (s *Service) ErasedCID(ctx context.Context, cid string) error {
	r, err := s.Store.RecordByCID(ctx, cid)
	if seald.ErrorCode(err) == seald.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	if r.Erased() {
		return seald.Errorf(seald.EGONE, "the content of CID %s was erased; the record's proof still verifies", cid)
	}
	return nil
}
