package seald

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Erasure (issue 19) forgets a record's data for good while its proof stays valid. The data key of the
// record is destroyed and its stored copy deleted; the reference, hash, token id, batch, Merkle path and
// signature are kept, so verification by any identifier still answers and a proof bundle still verifies
// offline. What erasure cannot remove (the hash, the Merkle root on chain, e-mails already sent) is written
// down in docs/privacy.md.
//
// An erasure is one transaction (Records.EraseRecord): the record's key cleared and erased_at set, the
// audit-trail entry, and a durable JobErase that deletes the stored copy from IPFS. A crash after the
// commit leaves the job, which the pipeline runs on restart; deleting a copy twice is harmless.

// ErasureLog keeps the references erased, outside the database, so that an erasure survives the restore of
// a database backup taken before it: at start, every reference it lists is erased again (ReplayErasures).
type ErasureLog interface {
	// Append records an erasure durably before it is committed to the database.
	Append(ctx context.Context, reference string, at time.Time) error
	// References lists every reference recorded, oldest first.
	References(ctx context.Context) ([]string, error)
}

// Actors of erasures not made with an API key.
const (
	ActorRetention  = "retention"   // Service.EraseExpired
	ActorErasureLog = "erasure-log" // Service.ReplayErasures
)

// Erase erases a record's data for its owner, or for the operator (Operator), any record; a nil caller is
// EUNAUTHORIZED. A record another caller cannot see is ENOTFOUND; one already erased is returned as it is,
// with erased false.
func (s *Service) Erase(ctx context.Context, c *Caller, reference, reason string) (r *Record, erased bool, err error) {
	if c == nil {
		return nil, false, errNoCaller()
	}
	if strings.TrimSpace(reason) == "" {
		return nil, false, Errorf(EINVALID, "reason is required: say why the data is erased (it goes into the audit trail)")
	}
	if err := checkLength("reason", reason, MaxReason); err != nil {
		return nil, false, err
	}
	if r, err = s.owned(ctx, c, reference); err != nil {
		return nil, false, err
	}
	return s.erase(ctx, r, c.actor(), reason)
}

// erase erases r unless it is erased already, and returns the record as stored afterwards.
func (s *Service) erase(ctx context.Context, r *Record, actor, reason string) (*Record, bool, error) {
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
	ch := &StatusChange{Reference: r.Reference, Actor: actor, Reason: reason, At: now, Action: ActionErase}
	erased, err := s.Store.EraseRecord(ctx, ch, &Job{Kind: JobErase, Reference: r.Reference, RunAt: now})
	if err != nil {
		return nil, false, err
	}
	s.crashPoint(CrashAfterEraseSave)
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
		reason := "the project's retention period (" + FormatRetention(p.Retain) + ") has passed"
		if _, ok, err := s.erase(ctx, r, ActorRetention, reason); err != nil {
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
		if ErrorCode(err) == ENOTFOUND {
			continue
		}
		if err != nil {
			return n, err
		}
		if r.Erased() {
			continue
		}
		ch := &StatusChange{Reference: ref, Actor: ActorErasureLog, At: s.now(), Action: ActionErase,
			Reason: "erased again from the erasure log: the database did not show the erasure (restored from a backup?)"}
		ok, err := s.Store.EraseRecord(ctx, ch, &Job{Kind: JobErase, Reference: ref, RunAt: ch.At})
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

// ParseRetention reads a retention period: a number of days ("365d") or a Go duration ("8760h", "90m").
// It must be positive; "forever" turns retention off and is returned as 0 with no error.
func ParseRetention(member, v string) (time.Duration, error) {
	bad := Errorf(EINVALID, "%s: %q is not a positive duration: give days (365d) or hours, minutes, seconds (8760h, 90m, 30s), or forever to keep copies for ever", member, v)
	v = strings.TrimSpace(v)
	if v == RetainForever {
		return 0, nil
	}
	var d time.Duration
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil || n <= 0 || n > 100*366 {
			return 0, bad
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			return 0, bad
		}
	}
	if d <= 0 {
		return 0, bad
	}
	// Kept in milliseconds.
	if d < time.Millisecond {
		return 0, bad
	}
	return d.Truncate(time.Millisecond), nil
}

// RetainForever is the retention of a project that keeps stored copies for ever (the default).
const RetainForever = "forever"

// FormatRetention writes a retention period as ParseRetention reads it: whole days as "365d", "forever" for
// none.
func FormatRetention(d time.Duration) string {
	switch {
	case d == 0:
		return RetainForever
	case d%(24*time.Hour) == 0:
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	return d.String()
}

// ErasedCID answers EGONE when cid is the stored copy of an erased record, for the IPFS gateway; nil
// otherwise (an unknown CID is the gateway's to answer).
func (s *Service) ErasedCID(ctx context.Context, cid string) error {
	r, err := s.Store.RecordByCID(ctx, cid)
	if ErrorCode(err) == ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	if r.Erased() {
		return Errorf(EGONE, "the content of CID %s was erased; the record's proof still verifies", cid)
	}
	return nil
}
