package storetest

import (
	"strings"
	"testing"
	"time"

	"seald.dev/seald"
)

var batchTests = []test{
	{"AnchorQueue", testAnchorQueue},
	{"NextTokenID", testNextTokenID},
	{"CreateBatch", testCreateBatch},
	{"CreateBatchConflict", testCreateBatchConflict},
	{"CreateBatchMany", testCreateBatchMany},
	{"UniqueTokens", testUniqueTokens},
	{"Fenced", testFenced},
	{"FailBatch", testFailBatch},
	{"Revocations", testRevocations},
	{"UpdateBatch", testUpdateBatch},
	{"ConfirmBatch", testConfirmBatch},
	{"TransitionAsTold", testTransitionAsTold},
	{"OpenBatches", testOpenBatches},
	{"BatchesFrom", testBatchesFrom},
	{"SetAnchorError", testSetAnchorError},
	{"SetBatchError", testSetBatchError},
}

// The moves the pipeline's anchor leader asks of a store; the store applies them as told.
var (
	placed   = seald.Transition{From: seald.StateIPFSStored, To: seald.StateAnchorSubmitted}
	anchored = seald.Transition{From: seald.StateAnchorSubmitted, To: seald.StateAnchored, ClearError: true, Next: seald.JobNotify}
)

// stored stores a record of p on network, waiting in IPFS_STORED, created at the given offset from base.
func stored(t *testing.T, s seald.Store, p *seald.Project, network string, at time.Duration) *seald.Record {
	t.Helper()
	r := newRecord(p, base.Add(at))
	r.Network, r.State = network, seald.StateIPFSStored
	r.CID = "bafkrei" + randomHex(20)
	r.EncryptedFile = "ipfs://" + r.CID
	create(t, s, r)
	return r
}

// newBatch returns a signed batch of count tokens from first, not stored.
func newBatch(network string, first uint64, count int) *seald.Batch {
	tx := "0x" + randomHex(32)
	return &seald.Batch{
		Network: network, FirstTokenID: first, Count: count, Root: "0x" + randomHex(32), Nonce: 41,
		TxHash: tx, TxHashes: []string{tx}, RawTx: []byte{0x02, 0xf8, 0x00, 0xff}, State: seald.BatchSigned,
		CreatedAt: base, UpdatedAt: base,
	}
}

// entries places records in a batch from token first.
func entries(first uint64, rs ...*seald.Record) []seald.BatchEntry {
	es := make([]seald.BatchEntry, len(rs))
	for i, r := range rs {
		es[i] = seald.BatchEntry{Reference: r.Reference, TokenID: first + uint64(i), Leaf: "0x" + randomHex(32),
			MerklePath: []string{"0x" + randomHex(32), "0x" + randomHex(32)}}
	}
	return es
}

// batch stores a batch of rs from token first.
func batch(t *testing.T, s seald.Store, network string, first uint64, rs ...*seald.Record) *seald.Batch {
	t.Helper()
	b := newBatch(network, first, len(rs))
	ok(t, "CreateBatch", s.CreateBatch(t.Context(), b, entries(first, rs...), placed, base))
	return b
}

// The queue holds the records of a network waiting in IPFS_STORED with no batch, oldest first.
func testAnchorQueue(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	c := stored(t, s, p, seald.NetworkPolygon, 2*time.Second)
	a := stored(t, s, p, seald.NetworkPolygon, 0)
	b := stored(t, s, p, seald.NetworkPolygon, time.Second)
	eos := stored(t, s, p, seald.NetworkEOS, 0)
	create(t, s, newRecord(p, base)) // PENDING

	q, err := s.AnchorQueue(ctx, seald.NetworkPolygon, seald.StateIPFSStored, 10)
	ok(t, "AnchorQueue", err)
	equal(t, "AnchorQueue", q, []*seald.Record{a, b, c})
	q, err = s.AnchorQueue(ctx, seald.NetworkPolygon, seald.StateIPFSStored, 2)
	ok(t, "AnchorQueue", err)
	equal(t, "AnchorQueue limited to 2", references(q), []string{a.Reference, b.Reference})
	q, err = s.AnchorQueue(ctx, seald.NetworkEOS, seald.StateIPFSStored, 10)
	ok(t, "AnchorQueue EOS", err)
	equal(t, "AnchorQueue EOS", references(q), []string{eos.Reference})

	batch(t, s, seald.NetworkPolygon, 1, a)
	q, err = s.AnchorQueue(ctx, seald.NetworkPolygon, seald.StateIPFSStored, 10)
	ok(t, "AnchorQueue", err)
	equal(t, "AnchorQueue after a batch", references(q), []string{b.Reference, c.Reference})
}

func testNextTokenID(t *testing.T, s seald.Store) {
	ctx := t.Context()
	want := func(network string, n uint64) {
		t.Helper()
		got, err := s.NextTokenID(ctx, network)
		ok(t, "NextTokenID", err)
		if got != n {
			t.Errorf("NextTokenID(%s) = %d, want %d", network, got, n)
		}
	}
	want(seald.NetworkPolygon, 1)
	_, p := tenant(t, s)
	rs := []*seald.Record{stored(t, s, p, seald.NetworkPolygon, 0), stored(t, s, p, seald.NetworkPolygon, 0),
		stored(t, s, p, seald.NetworkPolygon, 0)}
	batch(t, s, seald.NetworkPolygon, 1, rs...)
	want(seald.NetworkPolygon, 4)
	want(seald.NetworkEOS, 1)
	batch(t, s, seald.NetworkPolygon, 4, stored(t, s, p, seald.NetworkPolygon, 0), stored(t, s, p, seald.NetworkPolygon, 0))
	want(seald.NetworkPolygon, 6)
	batch(t, s, seald.NetworkEOS, 1<<40, stored(t, s, p, seald.NetworkEOS, 0))
	want(seald.NetworkEOS, 1<<40+1)
}

// CreateBatch stores the batch and places each record at its token with its leaf and Merkle path.
func testCreateBatch(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r1, r2 := stored(t, s, p, seald.NetworkPolygon, 0), stored(t, s, p, seald.NetworkPolygon, time.Second)
	b := newBatch(seald.NetworkPolygon, 7, 2)
	es := entries(7, r1, r2)
	now := base.Add(time.Hour)
	ok(t, "CreateBatch", s.CreateBatch(ctx, b, es, placed, now))
	if b.ID == 0 {
		t.Fatal("CreateBatch set no ID")
	}
	got, err := s.Batch(ctx, b.ID)
	ok(t, "Batch", err)
	equal(t, "Batch", got, b)
	for i, r := range []*seald.Record{r1, r2} {
		r.State, r.BatchID, r.TokenID = seald.StateAnchorSubmitted, b.ID, es[i].TokenID
		r.Leaf, r.MerklePath, r.UpdatedAt, r.Reached.AnchorSubmitted = es[i].Leaf, es[i].MerklePath, now, now
		equal(t, "record placed in the batch", record(t, s, r.Reference), r)
		byToken, err := s.RecordByToken(ctx, seald.NetworkPolygon, es[i].TokenID)
		ok(t, "RecordByToken", err)
		equal(t, "RecordByToken", byToken, r)
	}
	_, err = s.Batch(ctx, b.ID+1000)
	wantCode(t, "Batch of an unknown id", err, seald.ENOTFOUND)
}

// A batch of more records than one statement moves (the SQL stores place them some at a time) places each
// at its own token, leaf and paths; one record not waiting, or named twice, among them refuses the whole
// batch, naming that record, and leaves every record as it was.
func testCreateBatchMany(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	var rs []*seald.Record
	for i := range 150 {
		rs = append(rs, stored(t, s, p, seald.NetworkPolygon, time.Duration(i)*time.Millisecond))
	}
	pending := newRecord(p, base)
	create(t, s, pending)
	for name, es := range map[string][]seald.BatchEntry{
		"a PENDING record last": entries(1, append(rs[:140:140], pending)...),
		"a record twice":        entries(1, append(rs[:139:139], rs[138])...),
	} {
		err := s.CreateBatch(ctx, newBatch(seald.NetworkPolygon, 1, len(es)), es, placed, base.Add(time.Hour))
		wantCode(t, "CreateBatch with "+name, err, seald.ECONFLICT)
		if name == "a PENDING record last" && (err == nil || !strings.Contains(err.Error(), pending.Reference)) {
			t.Errorf("CreateBatch with %s: %v, want the record named", name, err)
		}
		for _, r := range []*seald.Record{rs[0], rs[70], rs[138]} {
			equal(t, "record "+r.Reference+" after the refused batch", record(t, s, r.Reference), r)
		}
	}
	b := newBatch(seald.NetworkPolygon, 1, len(rs))
	es := entries(1, rs...)
	es[3].MerklePath, es[99].DisclosurePath = nil, []string{"0x" + randomHex(32)}
	now := base.Add(time.Hour)
	ok(t, "CreateBatch", s.CreateBatch(ctx, b, es, placed, now))
	for i, r := range rs {
		r.State, r.BatchID, r.TokenID = seald.StateAnchorSubmitted, b.ID, es[i].TokenID
		r.Leaf, r.MerklePath, r.DisclosurePath, r.UpdatedAt, r.Reached.AnchorSubmitted = es[i].Leaf, es[i].MerklePath,
			es[i].DisclosurePath, now, now
		equal(t, "record placed in the batch", record(t, s, r.Reference), r)
	}
}

// A batch with any record no longer waiting (another state, already in a batch, another network) is
// ECONFLICT, and nothing changes: no batch, no record placed.
func testCreateBatchConflict(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	taken := stored(t, s, p, seald.NetworkPolygon, 0)
	first := batch(t, s, seald.NetworkPolygon, 1, taken)
	pending := newRecord(p, base)
	create(t, s, pending)
	eos := stored(t, s, p, seald.NetworkEOS, 0)
	odd := newRecord(p, base) // IPFS_STORED yet in a batch: not waiting either
	odd.State, odd.BatchID = seald.StateIPFSStored, first.ID
	create(t, s, odd)
	for name, bad := range map[string]*seald.Record{"PENDING": pending, "already in a batch": taken,
		"of another network": eos, "in IPFS_STORED with a batch": odd} {
		a, b := stored(t, s, p, seald.NetworkPolygon, time.Second), stored(t, s, p, seald.NetworkPolygon, 2*time.Second)
		nb := newBatch(seald.NetworkPolygon, 2, 3)
		err := s.CreateBatch(ctx, nb, entries(2, a, bad, b), placed, base.Add(time.Hour))
		wantCode(t, "CreateBatch with a record "+name, err, seald.ECONFLICT)
		equal(t, "record "+a.Reference+" after the refused batch", record(t, s, a.Reference), a)
		equal(t, "record "+b.Reference+" after the refused batch", record(t, s, b.Reference), b)
	}
	open, err := s.OpenBatches(ctx, seald.NetworkPolygon)
	ok(t, "OpenBatches", err)
	equal(t, "OpenBatches after refused batches", open, []*seald.Batch{first})
	next, err := s.NextTokenID(ctx, seald.NetworkPolygon)
	ok(t, "NextTokenID", err)
	if next != 2 {
		t.Errorf("NextTokenID after refused batches = %d, want 2", next)
	}
	equal(t, "the record already in a batch", record(t, s, taken.Reference).BatchID, first.ID)
}

func testUpdateBatch(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	b := batch(t, s, seald.NetworkPolygon, 1, stored(t, s, p, seald.NetworkPolygon, 0))
	replacement := "0x" + randomHex(32)
	b.State, b.Attempt, b.TxHash = seald.BatchSent, 1, replacement
	b.TxHashes = append(b.TxHashes, replacement)
	b.RawTx, b.Nonce = []byte{0x02, 0x01}, 42
	b.BlockNumber, b.BlockHash, b.UpdatedAt = 1<<33+5, "0x"+randomHex(32), base.Add(time.Minute)
	ok(t, "UpdateBatch", s.UpdateBatch(ctx, b, nil))
	got, err := s.Batch(ctx, b.ID)
	ok(t, "Batch", err)
	equal(t, "updated Batch", got, b)

	ghost := newBatch(seald.NetworkPolygon, 9, 1)
	ghost.ID = b.ID + 1000
	wantCode(t, "UpdateBatch of an unknown batch", s.UpdateBatch(ctx, ghost, nil), seald.ENOTFOUND)
}

// ConfirmBatch confirms the batch, anchors its records with their errors cleared and queues their next job;
// a second confirmation is ECONFLICT and queues nothing more.
func testConfirmBatch(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r1, r2 := stored(t, s, p, seald.NetworkPolygon, 0), stored(t, s, p, seald.NetworkPolygon, time.Second)
	outside := stored(t, s, p, seald.NetworkPolygon, 2*time.Second)
	b := batch(t, s, seald.NetworkPolygon, 1, r1, r2)
	ok(t, "SetBatchError", s.SetBatchError(ctx, b.ID, seald.ErrorTypeBlockchain, "nonce too low", base.Add(time.Minute)))

	now := base.Add(time.Hour)
	b.State, b.BlockNumber, b.BlockHash = seald.BatchConfirmed, 123, "0x"+randomHex(32)
	b.UpdatedAt = now
	ok(t, "ConfirmBatch", s.ConfirmBatch(ctx, b, anchored, now))
	got, err := s.Batch(ctx, b.ID)
	ok(t, "Batch", err)
	equal(t, "confirmed Batch", got, b)
	for _, r := range []*seald.Record{r1, r2} {
		g := record(t, s, r.Reference)
		if g.State != seald.StateAnchored || g.ErrorType != "" || g.ErrorMessage != "" || !g.UpdatedAt.Equal(now) {
			t.Errorf("record after ConfirmBatch: state %s, error %q %q, updated %v; want ANCHORED, no error, %v",
				g.State, g.ErrorType, g.ErrorMessage, g.UpdatedAt, now)
		}
	}
	equal(t, "record outside the batch", record(t, s, outside.Reference), outside)
	open, err := s.OpenBatches(ctx, seald.NetworkPolygon)
	ok(t, "OpenBatches", err)
	if len(open) != 0 {
		t.Errorf("OpenBatches after ConfirmBatch = %s", show(open))
	}

	wantCode(t, "ConfirmBatch twice", s.ConfirmBatch(ctx, b, anchored, now), seald.ECONFLICT)
	jobs := claimAll(t, s, allKinds, now)
	if len(jobs) != 2 {
		t.Fatalf("jobs after ConfirmBatch = %s, want 2 notify jobs", show(jobs))
	}
	refs := map[string]bool{}
	for _, j := range jobs {
		if j.Kind != seald.JobNotify || !j.RunAt.Equal(now) || j.Attempts != 0 {
			t.Errorf("job after ConfirmBatch = %s, want notify due %v", show(j), now)
		}
		refs[j.Reference] = true
	}
	equal(t, "references of the queued jobs", refs, map[string]bool{r1.Reference: true, r2.Reference: true})

	ghost := newBatch(seald.NetworkPolygon, 9, 1)
	ghost.ID = b.ID + 1000
	wantCode(t, "ConfirmBatch of an unknown batch", s.ConfirmBatch(ctx, ghost, anchored, now), seald.ENOTFOUND)
}

// The store applies the transition it is told, no rule of its own: a caller's other states are used as
// given, the errors stay when ClearError is false, and no job is queued when Next is empty.
func testTransitionAsTold(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := newRecord(p, base) // PENDING
	create(t, s, r)
	q, err := s.AnchorQueue(ctx, r.Network, seald.StatePending, 10)
	ok(t, "AnchorQueue of PENDING", err)
	equal(t, "AnchorQueue of PENDING", references(q), []string{r.Reference})

	told := seald.Transition{From: seald.StatePending, To: seald.StateIPFSStored}
	b := newBatch(r.Network, 1, 1)
	ok(t, "CreateBatch", s.CreateBatch(ctx, b, entries(1, r), told, base))
	ok(t, "SetBatchError", s.SetBatchError(ctx, b.ID, seald.ErrorTypeBlockchain, "nonce too low", base))
	if g := record(t, s, r.Reference); g.State != seald.StateIPFSStored || g.BatchID != b.ID {
		t.Fatalf("record after CreateBatch told %v: state %s, batch %d", told, g.State, g.BatchID)
	}

	told = seald.Transition{From: seald.StateIPFSStored, To: seald.StateAnchorSubmitted}
	b.State = seald.BatchConfirmed
	ok(t, "ConfirmBatch", s.ConfirmBatch(ctx, b, told, base.Add(time.Hour)))
	g := record(t, s, r.Reference)
	if g.State != seald.StateAnchorSubmitted || g.ErrorMessage != "nonce too low" {
		t.Errorf("record after ConfirmBatch told %v: state %s, error %q; want ANCHOR_SUBMITTED, the error kept",
			told, g.State, g.ErrorMessage)
	}
	if jobs := claimAll(t, s, allKinds, base.Add(time.Hour)); len(jobs) != 0 {
		t.Errorf("jobs after ConfirmBatch with no Next = %s, want none", show(jobs))
	}
}

func testOpenBatches(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	b1 := batch(t, s, seald.NetworkPolygon, 1, stored(t, s, p, seald.NetworkPolygon, 0))
	b2 := batch(t, s, seald.NetworkPolygon, 2, stored(t, s, p, seald.NetworkPolygon, 0))
	b3 := batch(t, s, seald.NetworkPolygon, 3, stored(t, s, p, seald.NetworkPolygon, 0))
	batch(t, s, seald.NetworkEOS, 1, stored(t, s, p, seald.NetworkEOS, 0))
	b2.State = seald.BatchSent
	ok(t, "UpdateBatch", s.UpdateBatch(ctx, b2, nil))
	ok(t, "ConfirmBatch", s.ConfirmBatch(ctx, b1, anchored, base))
	b1.State = seald.BatchConfirmed
	open, err := s.OpenBatches(ctx, seald.NetworkPolygon)
	ok(t, "OpenBatches", err)
	equal(t, "OpenBatches", open, []*seald.Batch{b2, b3})
}

// BatchesFrom returns the batches holding a token id at or after the given one, by first token id, in any
// state.
func testBatchesFrom(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	recs := func(n int) []*seald.Record {
		rs := make([]*seald.Record, n)
		for i := range rs {
			rs[i] = stored(t, s, p, seald.NetworkPolygon, 0)
		}
		return rs
	}
	b6 := batch(t, s, seald.NetworkPolygon, 6, recs(5)...) // 6..10, created first
	b1 := batch(t, s, seald.NetworkPolygon, 1, recs(3)...) // 1..3
	b4 := batch(t, s, seald.NetworkPolygon, 4, recs(2)...) // 4..5
	batch(t, s, seald.NetworkEOS, 1, stored(t, s, p, seald.NetworkEOS, 0))
	ok(t, "ConfirmBatch", s.ConfirmBatch(ctx, b4, anchored, base))
	b4.State = seald.BatchConfirmed
	for _, c := range []struct {
		from uint64
		want []*seald.Batch
	}{{1, []*seald.Batch{b1, b4, b6}}, {3, []*seald.Batch{b1, b4, b6}}, {4, []*seald.Batch{b4, b6}},
		{5, []*seald.Batch{b4, b6}}, {6, []*seald.Batch{b6}}, {10, []*seald.Batch{b6}}, {11, []*seald.Batch{}}} {
		got, err := s.BatchesFrom(ctx, seald.NetworkPolygon, c.from)
		ok(t, "BatchesFrom", err)
		equal(t, "BatchesFrom", got, c.want)
	}
}

// SetAnchorError marks the given records with a chain fault, leaving their state and every other record.
func testSetAnchorError(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	a, b, c := stored(t, s, p, seald.NetworkPolygon, 0), stored(t, s, p, seald.NetworkPolygon, 0), stored(t, s, p, seald.NetworkPolygon, 0)
	now := base.Add(time.Hour)
	ok(t, "SetAnchorError", s.SetAnchorError(ctx, []string{a.Reference, "D-unknown", b.Reference},
		seald.ErrorTypeBlockchain, "rpc: connection refused", now))
	for _, r := range []*seald.Record{a, b} {
		r.ErrorType, r.ErrorMessage, r.UpdatedAt = seald.ErrorTypeBlockchain, "rpc: connection refused", now
		equal(t, "record with an anchor error", record(t, s, r.Reference), r)
	}
	equal(t, "record not named", record(t, s, c.Reference), c)
	ok(t, "SetAnchorError of no record", s.SetAnchorError(ctx, nil, seald.ErrorTypeBlockchain, "x", now))
}

func testSetBatchError(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	in1, in2 := stored(t, s, p, seald.NetworkPolygon, 0), stored(t, s, p, seald.NetworkPolygon, 0)
	out := stored(t, s, p, seald.NetworkPolygon, 0)
	b := batch(t, s, seald.NetworkPolygon, 1, in1, in2)
	now := base.Add(time.Hour)
	ok(t, "SetBatchError", s.SetBatchError(ctx, b.ID, seald.ErrorTypeBlockchain, "replacement underpriced", now))
	for _, r := range []*seald.Record{in1, in2} {
		g := record(t, s, r.Reference)
		if g.State != seald.StateAnchorSubmitted || g.ErrorType != seald.ErrorTypeBlockchain ||
			g.ErrorMessage != "replacement underpriced" || !g.UpdatedAt.Equal(now) {
			t.Errorf("record of the batch = %s, want ANCHOR_SUBMITTED with the batch's error at %v", show(g), now)
		}
	}
	equal(t, "record outside the batch", record(t, s, out.Reference), out)
}

// Token ids are unique per network in the database itself: a second batch from the same first token id, or a
// record given a token id another holds, is ECONFLICT and nothing changes, whoever asks.
func testUniqueTokens(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	batch(t, s, seald.NetworkPolygon, 1, stored(t, s, p, seald.NetworkPolygon, 0), stored(t, s, p, seald.NetworkPolygon, 0))
	a := stored(t, s, p, seald.NetworkPolygon, time.Second)
	wantCode(t, "CreateBatch from a first token id another batch has", s.CreateBatch(ctx, newBatch(seald.NetworkPolygon, 1, 1),
		entries(5, a), placed, base), seald.ECONFLICT)
	wantCode(t, "CreateBatch giving a record a token id another holds", s.CreateBatch(ctx, newBatch(seald.NetworkPolygon, 2, 1),
		entries(2, a), placed, base), seald.ECONFLICT)
	equal(t, "record after the refused batches", record(t, s, a.Reference), a)
	// Another network has its own token ids.
	batch(t, s, seald.NetworkEOS, 1, stored(t, s, p, seald.NetworkEOS, 0))
}

// Each taking of a lock gets a higher epoch; a batch created, updated or confirmed, or a revocation saved,
// under an epoch that is no longer the lock's latest is ECONFLICT and changes nothing, so a leader that lost
// its lock unaware adds nothing.
func testFenced(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	const name = "anchor:POLYGON"
	l1 := tryLock(t, s, name)
	if l1 == nil {
		t.Fatal("TryLock of a free lock returned nil")
	}
	old := &seald.Fence{Name: name, Epoch: l1.Epoch()}
	l1.Release()
	l2 := tryLock(t, s, name)
	if l2 == nil {
		t.Fatal("TryLock after Release returned nil")
	}
	defer l2.Release()
	if l2.Epoch() <= old.Epoch {
		t.Fatalf("epochs %d then %d: the second holder's is not higher", old.Epoch, l2.Epoch())
	}
	cur := &seald.Fence{Name: name, Epoch: l2.Epoch()}
	r := stored(t, s, p, seald.NetworkPolygon, 0)
	stale, live := placed, placed
	stale.Fence, live.Fence = old, cur
	wantCode(t, "CreateBatch under a past epoch", s.CreateBatch(ctx, newBatch(seald.NetworkPolygon, 1, 1), entries(1, r), stale, base), seald.ECONFLICT)
	equal(t, "record after the fenced-off batch", record(t, s, r.Reference), r)
	b := newBatch(seald.NetworkPolygon, 1, 1)
	ok(t, "CreateBatch under the current epoch", s.CreateBatch(ctx, b, entries(1, r), live, base))
	staleDone, liveDone := anchored, anchored
	staleDone.Fence, liveDone.Fence = old, cur
	wantCode(t, "ConfirmBatch under a past epoch", s.ConfirmBatch(ctx, b, staleDone, base), seald.ECONFLICT)
	if got := record(t, s, r.Reference).State; got != seald.StateAnchorSubmitted {
		t.Errorf("record in %s after a fenced-off confirmation, want %s", got, seald.StateAnchorSubmitted)
	}
	// A stale leader woken from a pause cannot overwrite the batch's transactions, nor a revocation.
	saved, err := s.Batch(ctx, b.ID)
	ok(t, "Batch", err)
	overwrite := *saved
	overwrite.TxHash, overwrite.TxHashes, overwrite.Attempt = "0x"+randomHex(32), []string{"0x" + randomHex(32)}, 9
	wantCode(t, "UpdateBatch under a past epoch", s.UpdateBatch(ctx, &overwrite, old), seald.ECONFLICT)
	got, err := s.Batch(ctx, b.ID)
	ok(t, "Batch", err)
	equal(t, "batch after a fenced-off update", got, saved)
	ok(t, "UpdateBatch under the current epoch", s.UpdateBatch(ctx, &overwrite, cur))
	tx := "0x" + randomHex(32)
	rv := &seald.Revocation{Network: seald.NetworkPolygon, TokenID: 1, Reference: r.Reference, Nonce: 7, TxHash: tx,
		TxHashes: []string{tx}, RawTx: []byte{0x02}, State: seald.BatchSigned, CreatedAt: base, UpdatedAt: base}
	wantCode(t, "SaveRevocation under a past epoch", s.SaveRevocation(ctx, rv, old), seald.ECONFLICT)
	_, err = s.Revocation(ctx, seald.NetworkPolygon, 1)
	wantCode(t, "Revocation after a fenced-off save", err, seald.ENOTFOUND)
	ok(t, "SaveRevocation under the current epoch", s.SaveRevocation(ctx, rv, cur))
	wantCode(t, "CheckFence of a past epoch", s.CheckFence(ctx, *old), seald.ECONFLICT)
	ok(t, "CheckFence of the current epoch", s.CheckFence(ctx, *cur))
}

// A failed batch takes its records back to the queue with the error given, gives its token ids back, and is
// no longer open; failing it twice, or failing a confirmed batch, is ECONFLICT.
func testFailBatch(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	a, b := stored(t, s, p, seald.NetworkPolygon, 0), stored(t, s, p, seald.NetworkPolygon, time.Second)
	bt := batch(t, s, seald.NetworkPolygon, 1, a, b)
	requeued := seald.Transition{From: seald.StateAnchorSubmitted, To: seald.StateIPFSStored}
	now := base.Add(time.Hour)
	ok(t, "FailBatch", s.FailBatch(ctx, bt, requeued, seald.ErrorTypeBlockchain, "reverted", now))
	if bt.State != seald.BatchFailed {
		t.Errorf("batch state %s after FailBatch", bt.State)
	}
	for _, r := range []*seald.Record{a, b} {
		got := record(t, s, r.Reference)
		if got.State != seald.StateIPFSStored || got.BatchID != 0 || got.TokenID != 0 || got.Leaf != "" ||
			got.MerklePath != nil || got.ErrorType != seald.ErrorTypeBlockchain || got.ErrorMessage != "reverted" {
			t.Errorf("record after FailBatch: %+v", got)
		}
	}
	queue, err := s.AnchorQueue(ctx, seald.NetworkPolygon, seald.StateIPFSStored, 10)
	ok(t, "AnchorQueue", err)
	if len(queue) != 2 {
		t.Errorf("%d records queued after FailBatch, want 2", len(queue))
	}
	open, err := s.OpenBatches(ctx, seald.NetworkPolygon)
	ok(t, "OpenBatches", err)
	equal(t, "OpenBatches after FailBatch", len(open), 0)
	next, err := s.NextTokenID(ctx, seald.NetworkPolygon)
	ok(t, "NextTokenID", err)
	equal(t, "NextTokenID after FailBatch", next, uint64(1))
	from, err := s.BatchesFrom(ctx, seald.NetworkPolygon, 1)
	ok(t, "BatchesFrom", err)
	equal(t, "BatchesFrom after FailBatch", len(from), 0)
	wantCode(t, "FailBatch twice", s.FailBatch(ctx, bt, requeued, seald.ErrorTypeBlockchain, "again", now), seald.ECONFLICT)
	// The same token ids go to the next batch.
	again := batch(t, s, seald.NetworkPolygon, 1, a, b)
	ok(t, "ConfirmBatch", s.ConfirmBatch(ctx, again, anchored, now))
	wantCode(t, "FailBatch of a confirmed batch", s.FailBatch(ctx, again, requeued, seald.ErrorTypeBlockchain, "late", now), seald.ECONFLICT)
	if got := record(t, s, a.Reference); got.State != seald.StateAnchored || got.TokenID != 1 {
		t.Errorf("record after a refused FailBatch: %s token %d", got.State, got.TokenID)
	}
}

// A revocation is saved by network and token and read back as saved; saving it again replaces it, keeping
// its creation time; the same token id on another network is another revocation.
func testRevocations(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, err := s.Revocation(ctx, seald.NetworkPolygon, 7)
	wantCode(t, "Revocation of a token never revoked", err, seald.ENOTFOUND)
	tx := "0x" + randomHex(32)
	rv := &seald.Revocation{Network: seald.NetworkPolygon, TokenID: 1<<40 + 7, Reference: "D-00000000-0000-4000-8000-000000000007",
		Nonce: 1<<33 + 1, TxHash: tx, TxHashes: []string{tx}, RawTx: []byte{0x02, 0xf8, 0x01}, State: seald.BatchSigned,
		CreatedAt: base, UpdatedAt: base}
	ok(t, "SaveRevocation", s.SaveRevocation(ctx, rv, nil))
	got, err := s.Revocation(ctx, seald.NetworkPolygon, rv.TokenID)
	ok(t, "Revocation", err)
	equal(t, "saved Revocation", got, rv)
	_, err = s.Revocation(ctx, seald.NetworkEOS, rv.TokenID)
	wantCode(t, "Revocation of the token id on another network", err, seald.ENOTFOUND)

	replacement := "0x" + randomHex(32)
	next := *rv
	next.TxHash, next.TxHashes, next.RawTx, next.Attempt = replacement, []string{tx, replacement}, []byte{0x02, 0x02}, 1
	next.State, next.CreatedAt, next.UpdatedAt = seald.BatchSent, base.Add(time.Hour), base.Add(time.Minute)
	ok(t, "SaveRevocation again", s.SaveRevocation(ctx, &next, nil))
	got, err = s.Revocation(ctx, seald.NetworkPolygon, rv.TokenID)
	ok(t, "Revocation", err)
	next.CreatedAt = base
	equal(t, "replaced Revocation", got, &next)
}
