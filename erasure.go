package seald

import (
	"context"
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
