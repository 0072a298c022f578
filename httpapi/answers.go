package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"seald.dev/seald/internal/ttlcache"
	"seald.dev/seald/wire"
)

// Verification answers are encoded once per version of what they say and then served as bytes: encoding
// was a quarter of a verification's CPU (docs/bench.md). Every request still reads the record and builds
// its answer (wire.Verification, plain values), and the cached bytes are used only when that answer equals
// the one they were encoded from, field by field: the bytes are a memo of a pure function of the answer,
// so a change anywhere (status, revocation, erasure, anchoring, an owner's name or privacy, the count of
// records with the hash), made by this instance or by another one on the same database, is a different
// answer and is encoded afresh. Nothing needs invalidating, and nothing stale can be served.

const (
	// answerLimit bounds the answers held (about 1.5 KB of body and the answer's strings each).
	answerLimit = 32 << 10
	// answerTTL drops answers not asked for again, to give their memory back; it plays no part in their
	// freshness.
	answerTTL = time.Minute
)

// answer is one encoded verification: the answer it was encoded from, and its body in the verification
// envelope.
type answer struct {
	v    wire.Verification
	body []byte
}

type answers struct {
	once sync.Once
	m    *ttlcache.Map[string, *answer]
}

func (a *answers) cache() *ttlcache.Map[string, *answer] {
	a.once.Do(func() { a.m = &ttlcache.Map[string, *answer]{Limit: answerLimit} })
	return a.m
}

// writeVerification writes a verification answer without a proof in the verification envelope, from the
// bytes encoded for an equal answer when there are some.
func (s *Server) writeVerification(w http.ResponseWriter, r *http.Request, res *wire.Verification) {
	if res.Proof != nil || envelopeFor(r.URL.Path) != verifyEnvelope {
		writeOK(w, r, http.StatusOK, res)
		return
	}
	m, key, now := s.answers.cache(), res.Details.Reference, time.Now()
	if a, ok := m.Get(key, now); ok && a.v == *res {
		writeBody(w, http.StatusOK, a.body)
		return
	}
	gen := m.Generation()
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(verifyBody{Success: true, Data: res}); err != nil {
		writeOK(w, r, http.StatusOK, res) // answers the same internal error as every other encoding failure
		return
	}
	m.Put(gen, key, &answer{v: *res, body: buf.Bytes()}, now.Add(answerTTL), now)
	writeBody(w, http.StatusOK, buf.Bytes())
}
