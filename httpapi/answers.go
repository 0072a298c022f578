package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"seald.dev/seald/internal/ttlcache"
	"seald.dev/seald/wire"
)

// Verification answers are encoded once per version of what they say and then served as bytes: encoding
// was a quarter of a verification's CPU (docs/bench.md). Every request still gets the record (brief:
// seald.Record.Brief; the stores answer it from memory while nothing was committed since they read it, and
// read it otherwise) and builds its answer (wire.Verification, plain values), and the held bytes are used
// only when that answer's fingerprint, the SHA-256 of every one of its fields, equals the fingerprint of the
// answer they were encoded from: the bytes are a memo of a pure function of the answer, so a change anywhere (status,
// revocation, erasure, anchoring, an owner's name or privacy, the count of records with the hash), made by
// this instance or by another one on the same database, is a different answer and is encoded afresh.
// Nothing needs invalidating, and nothing stale can be served. The fingerprint keeps an entry to its body
// and 32 bytes, where the answer itself would hold about as much again.

const (
	// answerLimit bounds the answers held (about 1.3 KB each: body, fingerprint, key; some 32 MB in all, and
	// up to twice that in heap between two garbage collections).
	answerLimit = 24 << 10
	// answerTTL drops answers not asked for again, to give their memory back; it plays no part in their
	// freshness.
	answerTTL = time.Minute
)

// answer is one encoded verification: the fingerprint of the answer it was encoded from, and its body in
// the verification envelope.
type answer struct {
	sum  [sha256.Size]byte
	body []byte
}

// answerKey names a held answer: a record's, by reference (or CID, token, OVI), or by hash (or data), which
// also counts the records holding the hash.
type answerKey struct {
	reference string
	byHash    bool
}

type answers struct {
	once sync.Once
	m    *ttlcache.Map[answerKey, *answer]
}

func (a *answers) cache() *ttlcache.Map[answerKey, *answer] {
	a.once.Do(func() { a.m = &ttlcache.Map[answerKey, *answer]{Limit: answerLimit} })
	return a.m
}

// fingerprints are reused buffers for fingerprint.
var fingerprints = sync.Pool{New: func() any { return new([]byte) }}

// fingerprint is the SHA-256 of every field of v but Proof (answers with a proof are not held), each
// length-prefixed, in the order of the type (TestAnswerFingerprintCoversEveryField).
func fingerprint(v *wire.Verification) [sha256.Size]byte {
	bp := fingerprints.Get().(*[]byte)
	b := (*bp)[:0]
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	flag := func(f bool) {
		if f {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	o := &v.Owner
	for _, s := range []string{o.Business.ID, o.Business.BusinessID, o.Business.Name, o.Business.Description,
		o.Business.Logo, o.Business.Website, o.Business.DateRegistered, o.ProjectID, o.Project.ID, o.Project.ProjectID,
		o.Project.Name, o.Project.Description, o.Project.Logo, o.Project.Privacy, o.Project.BusinessID, o.Project.Retain,
		o.BusinessID} {
		str(s)
	}
	switch a := o.Project.AttachCredential; { // only the tenant update's answer has it, but it is a field
	case a == nil:
		b = append(b, 2)
	default:
		flag(*a)
	}
	flag(v.IsDataDownloadable)
	str(v.Blockchain.TokenID)
	str(v.Blockchain.BlockchainNetwork)
	flag(v.Blockchain.RevokedOnChain)
	str(v.Blockchain.ChainName)
	str(v.IPFS.IPFSGatewayLink)
	str(v.IPFS.CID)
	str(v.Privacy)
	d := &v.Details
	for _, s := range []string{d.Reference, d.Pipeline, d.CreatedTime, d.UpdatedTime, d.Mimetype, d.EncryptedFile, d.Hash} {
		str(s)
	}
	str(v.Status)
	flag(v.Misc.IsEmail)
	flag(v.Misc.IsEncrypted)
	flag(v.Misc.IsSigned)
	flag(v.Misc.HasPassword)
	b = binary.AppendVarint(b, int64(v.RecordsWithHash))
	str(v.ErasedTime)
	sum := sha256.Sum256(b)
	*bp = b
	fingerprints.Put(bp)
	return sum
}

// writeVerification writes a verification answer without a proof in the verification envelope, from the
// bytes encoded for an equal answer when there are some.
func (s *Server) writeVerification(w http.ResponseWriter, r *http.Request, res *wire.Verification) {
	if res.Proof != nil || envelopeFor(r.URL.Path) != verifyEnvelope {
		writeOK(w, r, http.StatusOK, res)
		return
	}
	m, now := s.answers.cache(), time.Now()
	key, sum := answerKey{reference: res.Details.Reference, byHash: res.RecordsWithHash > 0}, fingerprint(res)
	if a, ok := m.Get(key, now); ok && a.sum == sum {
		writeBody(w, http.StatusOK, a.body)
		return
	}
	gen := m.Generation()
	buf := bodies.Get().(*bytes.Buffer)
	buf.Reset()
	err := json.NewEncoder(buf).Encode(verifyBody{Success: true, Data: res})
	body := bytes.Clone(buf.Bytes()) // exactly its size, and the buffer goes back to the pool
	if buf.Cap() <= 64<<10 {
		bodies.Put(buf)
	}
	if err != nil {
		writeOK(w, r, http.StatusOK, res) // answers the same internal error as every other encoding failure
		return
	}
	m.Put(gen, key, &answer{sum: sum, body: body}, now.Add(answerTTL), now)
	writeBody(w, http.StatusOK, body)
}

// HeldAnswers is the number of encoded verification answers held, for the metrics; AnswerLimit bounds it.
func (s *Server) HeldAnswers() int { return s.answers.cache().Len() }

// AnswerLimit is the most verification answers a Server holds.
const AnswerLimit = answerLimit
