package sqlite

import (
	"context"
	"time"

	"seald.dev/seald"
)

// Verification's reads (seald.Record.Brief, by reference and by hash) are held with the version of the
// database they were read at (version.go) and answered again from memory while the database is still at
// that version: with no commit since, by anyone, a read would return the very same rows. Any commit, from
// this Store, another one or another process, changes the version, so nothing held is ever served after a
// change; under sealing load nearly every read is made afresh, and costs one more look at the header. The
// version is read before the read, so a record held is never newer than the version it is held at. The
// writers write nothing more: the version is the commit itself.

const (
	// briefLimit bounds the lookups held (a record's brief fields, about 1 KB each; some 24 MB at most), as
	// many as the API holds encoded answers (httpapi/answers.go), which these reads feed. Both kinds, by
	// reference and by hash, share it; when a load of one kind fills it, it is emptied and fills with that
	// kind (ttlcache.Map). Twice as many (49,152) held no more of the bench's lookups but took the peak RSS of
	// its verification loads from 266 to 326-339 MB, past their 300 MB target (docs/bench.md, item 6).
	briefLimit = 24 << 10
	// briefTTL drops lookups not made again, to give their memory back; it plays no part in their freshness.
	briefTTL = time.Minute
)

// briefKey names a held lookup: a reference, or a hash.
type briefKey struct {
	key    string
	byHash bool
}

// briefs is what one lookup read, and the version it was read at.
type briefs struct {
	at walHeader
	rs []*seald.Record // their brief fields, never handed out: callers get copies
}

// RecordBrief finds a record by its reference, with only the fields of seald.Record.Brief; from memory when
// nothing was committed since the same lookup read it.
func (s *Store) RecordBrief(ctx context.Context, reference string) (*seald.Record, error) {
	rs, err := s.brief(ctx, briefKey{key: reference}, func() ([]*seald.Record, error) {
		r, err := s.Store.RecordBrief(ctx, reference)
		if err != nil {
			return nil, err
		}
		return []*seald.Record{r}, nil
	})
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// RecordsByHashBrief is RecordsByHash with only the fields of seald.Record.Brief; from memory when nothing
// was committed since the same lookup read them.
func (s *Store) RecordsByHashBrief(ctx context.Context, hash string) ([]*seald.Record, error) {
	return s.brief(ctx, briefKey{key: hash, byHash: true}, func() ([]*seald.Record, error) {
		return s.Store.RecordsByHashBrief(ctx, hash)
	})
}

// brief answers a lookup from what was held for it at the current version, or reads it and holds the result
// at the version read before the read, when that is still the version after it. Lookups that find nothing are
// not held.
func (s *Store) brief(ctx context.Context, k briefKey, read func() ([]*seald.Record, error)) ([]*seald.Record, error) {
	at, ok := s.version.read()
	now := time.Now()
	if ok {
		s.forgetOlder(at)
		if b, hit := s.briefs.Get(k, now); hit && b.at == at {
			return copies(b.rs), nil
		}
	}
	rs, err := read()
	if err != nil || !ok || len(rs) == 0 {
		return rs, err
	}
	if after, ok := s.version.read(); !ok || after != at {
		// Something was committed during the read: what it read is held at a version already gone, and
		// would never be answered; under sealing load that is nearly every read, and holding them is memory
		// kept for nothing.
		return rs, nil
	}
	s.briefs.Put(s.briefs.Generation(), k, &briefs{at: at, rs: copies(rs)}, now.Add(briefTTL), now)
	return rs, nil
}

// forgetOlder drops every held lookup when the version moved since a lookup last looked: each was held at an
// older version and would never be answered again. Under sealing load that is at nearly every commit, so
// what is held stays what was read since the last one, instead of a minute of stale reads.
func (s *Store) forgetOlder(at walHeader) {
	s.briefMu.RLock()
	same := s.briefAt == at
	s.briefMu.RUnlock()
	if same {
		return
	}
	s.briefMu.Lock()
	if s.briefAt != at {
		s.briefAt = at
		s.briefs.Invalidate()
	}
	s.briefMu.Unlock()
}

// copies copies records' brief fields, so that what is held and what callers get never share a Record.
func copies(rs []*seald.Record) []*seald.Record {
	out := make([]*seald.Record, len(rs))
	for i, r := range rs {
		out[i] = r.Brief()
	}
	return out
}
