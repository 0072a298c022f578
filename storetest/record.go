package storetest

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"seald.dev/seald"
)

var recordTests = []test{
	{"CountWaiting", testCountWaiting},
	{"CountWaitingWhileMoving", testCountWaitingWhileMoving},
	{"RoundTripFull", testRecordFull},
	{"RoundTripMinimal", testRecordMinimal},
	{"PathForms", testRecordPathForms},
	{"Times", testRecordTimes},
	{"NotFound", testRecordNotFound},
	{"DuplicateReference", testRecordDuplicate},
	{"AtomicWithJobs", testRecordAtomic},
	{"JobsOfCreate", testRecordJobs},
	{"ByHash", testRecordsByHash},
	{"Brief", testRecordBrief},
	{"ListRecords", testListRecords},
	{"ListRecordsWalk", testListRecordsWalk},
	{"CountProjectRecords", testCountProjectRecords},
	{"ByCID", testRecordByCID},
	{"ByToken", testRecordByToken},
	{"Payload", testPayload},
	{"ConcurrentCreate", testConcurrentCreate},
	{"ConcurrentCreateMany", testConcurrentCreateMany},
	{"ConcurrentCreateCancelled", testConcurrentCreateCancelled},
	{"CloseDrainsCreates", testCloseDrainsCreates},
	{"BulkInsert", testBulkInsert},
}

// fullRecord returns a record of p with every field set, in batch batchID.
func fullRecord(p *seald.Project, batchID int64) *seald.Record {
	r := newRecord(p, base)
	r.Pipeline, r.Network, r.MimeType = seald.PipelineEOS, seald.NetworkEOS, "application/ld+json"
	r.Privacy, r.Status, r.State = seald.PrivacyPrivate, seald.StatusSuspended, seald.StateEmailSent
	r.ErrorType, r.ErrorMessage = seald.ErrorTypeEmail, "mailbox full"
	r.CID = "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"
	r.EncryptedFile = "ipfs://" + r.CID
	r.TokenID, r.BatchID = 1<<40+7, batchID
	r.Leaf = "0x" + randomHex(32)
	r.MerklePath = []string{"0x" + randomHex(32), "0x" + randomHex(32)}
	r.RevokedOnChain, r.IsEmail, r.IsEncrypted, r.IsSigned, r.HasPassword, r.Downloadable = true, true, true, true, true, true
	r.PasswordHash = "$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA"
	r.Mail = &seald.MailRequest{To: []string{"a@example.com", "b@example.com"}, Cc: []string{"c@example.com"},
		Subject: "Sealed: ünïcødé ✓", Body: "<p>line 1\nline 2</p>", HTML: true}
	r.MessageID = "<" + r.Reference + "@seald>"
	r.OVI = "b3ZpLWNpcGhlcnRleHQ"
	r.Signature = "c2lnbmF0dXJl"
	r.DataKey = "k3." + randomHex(40)
	r.ErasedAt = base.Add(time.Minute)
	r.UpdatedAt = base.Add(90 * time.Second)
	return r
}

// emptyBatch stores a batch with no records, to have a batch id to refer to.
func emptyBatch(t *testing.T, s seald.Store, network string) *seald.Batch {
	t.Helper()
	b := &seald.Batch{Network: network, FirstTokenID: 1, Root: "0x" + randomHex(32), TxHash: "0x" + randomHex(32),
		State: seald.BatchSigned, CreatedAt: base, UpdatedAt: base}
	ok(t, "CreateBatch", s.CreateBatch(t.Context(), b, nil, placed, base))
	return b
}

func testRecordFull(t *testing.T, s seald.Store) {
	_, p := tenant(t, s)
	r := fullRecord(p, emptyBatch(t, s, seald.NetworkEOS).ID)
	create(t, s, r)
	equal(t, "Record", record(t, s, r.Reference), r)
}

// A Merkle path is kept in a compact form when every node is "0x" and 64 lowercase hex digits, as its JSON
// text otherwise (issue 45): each comes back as it went in, nodes of a path of each kind alike.
func testRecordPathForms(t *testing.T, s seald.Store) {
	_, p := tenant(t, s)
	batch := emptyBatch(t, s, seald.NetworkEOS).ID
	for _, c := range []struct {
		name             string
		merkle, disclose []string
	}{
		{"compact", []string{"0x" + randomHex(32), "0x" + randomHex(32), "0x" + randomHex(32)}, []string{"0x" + randomHex(32)}},
		{"upper case", []string{"0x" + strings.ToUpper(randomHex(32))}, nil},
		{"no 0x", []string{randomHex(32), "0x" + randomHex(32)}, []string{}},
		{"short node", []string{"0x" + randomHex(31)}, []string{"0x" + randomHex(32)}},
		{"not hex", []string{"0x" + strings.Repeat("zz", 32)}, nil},
	} {
		r := newRecord(p, base)
		r.TokenID, r.BatchID, r.Leaf = uint64(next()), batch, "0x"+randomHex(32)
		r.MerklePath, r.DisclosurePath = c.merkle, c.disclose
		if c.disclose != nil {
			r.Disclosure, r.DisclosureBlind = randomHex(32), randomHex(32)
		}
		create(t, s, r)
		equal(t, "Record with a path "+c.name, record(t, s, r.Reference), r)
	}
}

// A record with nothing optional comes back with nil pointers and slices and false flags, while an empty
// (not nil) Merkle path stays empty.
func testRecordMinimal(t *testing.T, s seald.Store) {
	_, p := tenant(t, s)
	r := newRecord(p, base)
	create(t, s, r)
	got := record(t, s, r.Reference)
	equal(t, "Record", got, r)
	if got.Mail != nil || got.MerklePath != nil {
		t.Errorf("Mail = %v, MerklePath = %#v; want nil", got.Mail, got.MerklePath)
	}

	r2 := newRecord(p, base)
	r2.MerklePath = []string{}
	r2.Mail = &seald.MailRequest{To: []string{"x@example.com"}, Subject: "s"}
	r2.IsEmail = true
	create(t, s, r2)
	equal(t, "Record with empty Merkle path and no Cc", record(t, s, r2.Reference), r2)
}

func testRecordTimes(t *testing.T, s seald.Store) {
	_, p := tenant(t, s)
	zone := time.FixedZone("UTC-07:00", -7*3600)
	r := newRecord(p, time.Date(2025, 6, 30, 17, 0, 0, 123_456_789, zone))
	r.UpdatedAt = time.Date(2025, 6, 30, 17, 0, 1, 999_999_999, zone)
	create(t, s, r)
	got := record(t, s, r.Reference)
	if want := time.Date(2025, 7, 1, 0, 0, 0, 123_000_000, time.UTC); !sameUTC(got.CreatedAt, want) {
		t.Errorf("CreatedAt = %v (%v), want %v", got.CreatedAt, got.CreatedAt.Location(), want)
	}
	if want := time.Date(2025, 7, 1, 0, 0, 1, 999_000_000, time.UTC); !sameUTC(got.UpdatedAt, want) {
		t.Errorf("UpdatedAt = %v, want %v", got.UpdatedAt, want)
	}
}

func testRecordNotFound(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	create(t, s, newRecord(p, base)) // no CID, no token
	_, err := s.Record(ctx, "D-nothing")
	wantCode(t, "Record", err, seald.ENOTFOUND)
	_, err = s.RecordByCID(ctx, "bafkreinothing")
	wantCode(t, "RecordByCID", err, seald.ENOTFOUND)
	_, err = s.RecordByCID(ctx, "")
	wantCode(t, "RecordByCID of the empty CID", err, seald.ENOTFOUND)
	_, err = s.RecordByToken(ctx, seald.NetworkPolygon, 1)
	wantCode(t, "RecordByToken", err, seald.ENOTFOUND)
	_, err = s.RecordByToken(ctx, seald.NetworkPolygon, 0)
	wantCode(t, "RecordByToken 0", err, seald.ENOTFOUND)
	_, err = s.RecordByToken(ctx, seald.NetworkPolygon, 1<<64-1)
	wantCode(t, "RecordByToken 2^64-1", err, seald.ENOTFOUND)
	_, err = s.Payload(ctx, "D-nothing")
	wantCode(t, "Payload", err, seald.ENOTFOUND)
	rs, err := s.RecordsByHash(ctx, randomHex(32))
	ok(t, "RecordsByHash of an unknown hash", err)
	if len(rs) != 0 {
		t.Errorf("RecordsByHash of an unknown hash = %d records", len(rs))
	}
	trail, err := s.AuditTrail(ctx, "D-nothing")
	ok(t, "AuditTrail of an unknown record", err)
	if len(trail) != 0 {
		t.Errorf("AuditTrail of an unknown record = %d entries", len(trail))
	}
}

// A taken reference is ECONFLICT, and the refused call changes nothing: the first record, its payload and
// its jobs stay as they were.
func testRecordDuplicate(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := newRecord(p, base)
	create(t, s, r, &seald.Job{Kind: seald.JobStore, RunAt: base})
	dup := newRecord(p, base.Add(time.Second))
	dup.Reference, dup.Hash = r.Reference, randomHex(32)
	err := s.CreateRecord(ctx, dup, []byte("other"), &seald.Job{Kind: seald.JobNotify, RunAt: base})
	wantCode(t, "CreateRecord with a taken reference", err, seald.ECONFLICT)
	equal(t, "the first record", record(t, s, r.Reference), r)
	b, err := s.Payload(ctx, r.Reference)
	ok(t, "Payload", err)
	equal(t, "the first payload", string(b), `{"ref":"`+r.Reference+`"}`)
	counts, err := s.CountJobs(ctx)
	ok(t, "CountJobs", err)
	equal(t, "CountJobs", counts, map[string]int{seald.JobStore: 1})
}

// A record whose job cannot be stored is not stored either, nor is its payload.
func testRecordAtomic(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	for name, bad := range map[string]*seald.Job{
		"a job with no kind":            {Kind: "", RunAt: base},
		"a job of a record not present": {Kind: seald.JobStore, Reference: "D-elsewhere", RunAt: base},
	} {
		r := newRecord(p, base)
		err := s.CreateRecord(ctx, r, []byte("{}"), &seald.Job{Kind: seald.JobStore, RunAt: base}, bad)
		if err == nil {
			t.Errorf("CreateRecord with %s succeeded", name)
			continue
		}
		_, err = s.Record(ctx, r.Reference)
		wantCode(t, "Record after CreateRecord failed with "+name, err, seald.ENOTFOUND)
		_, err = s.Payload(ctx, r.Reference)
		wantCode(t, "Payload after CreateRecord failed with "+name, err, seald.ENOTFOUND)
	}
	counts, err := s.CountJobs(ctx)
	ok(t, "CountJobs", err)
	if len(counts) != 0 {
		t.Errorf("CountJobs after failed creates = %v, want none", counts)
	}
}

// The jobs given to CreateRecord get their ids and the record's reference, and are stored as given.
func testRecordJobs(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := newRecord(p, base)
	j1 := &seald.Job{Kind: seald.JobStore, RunAt: base}
	j2 := &seald.Job{Kind: seald.JobNotify, Reference: r.Reference, RunAt: base.Add(time.Second), Attempts: 2, LastError: "earlier"}
	create(t, s, r, j1, j2)
	if j1.ID == 0 || j2.ID == 0 || j1.ID == j2.ID {
		t.Fatalf("job ids %d and %d, want two distinct non-zero ids", j1.ID, j2.ID)
	}
	if j1.Reference != r.Reference {
		t.Errorf("job Reference = %q, want the record's %q", j1.Reference, r.Reference)
	}
	got := claimAll(t, s, allKinds, base.Add(time.Hour))
	lease := base.Add(time.Hour + time.Minute)
	w1, w2 := *j1, *j2
	w1.LeasedUntil, w2.LeasedUntil = lease, lease
	equal(t, "claimed jobs", bare(got...), []*seald.Job{&w1, &w2})
	counts, err := s.CountJobs(ctx)
	ok(t, "CountJobs", err)
	equal(t, "CountJobs", counts, map[string]int{seald.JobStore: 1, seald.JobNotify: 1})
}

// RecordsByHash returns every record of a hash, newest first, and ties in creation time newest inserted first.
func testRecordsByHash(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	hash := randomHex(32)
	var rs []*seald.Record
	for _, at := range []time.Duration{time.Second, 0, 2 * time.Second, 2 * time.Second} {
		r := newRecord(p, base.Add(at))
		r.Hash = hash
		create(t, s, r)
		rs = append(rs, r)
	}
	create(t, s, newRecord(p, base.Add(time.Hour))) // another hash
	got, err := s.RecordsByHash(ctx, hash)
	ok(t, "RecordsByHash", err)
	equal(t, "RecordsByHash", got, []*seald.Record{rs[3], rs[2], rs[0], rs[1]})
}

// The brief reads a verification makes hold exactly the fields of Record.Brief, of a record with every field
// set and of one with nothing optional, and RecordsByHashBrief keeps the order of RecordsByHash.
func testRecordBrief(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	full, minimal := fullRecord(p, emptyBatch(t, s, seald.NetworkEOS).ID), newRecord(p, base)
	full.Hash = minimal.Hash
	minimal.CreatedAt = base.Add(time.Second)
	create(t, s, full)
	create(t, s, minimal)
	for _, r := range []*seald.Record{full, minimal} {
		got, err := s.RecordBrief(ctx, r.Reference)
		ok(t, "RecordBrief", err)
		equal(t, "RecordBrief", got, r.Brief())
	}
	got, err := s.RecordsByHashBrief(ctx, full.Hash)
	ok(t, "RecordsByHashBrief", err)
	equal(t, "RecordsByHashBrief", got, []*seald.Record{minimal.Brief(), full.Brief()})
	_, err = s.RecordBrief(ctx, "D-nothing")
	wantCode(t, "RecordBrief of an unknown reference", err, seald.ENOTFOUND)
	rs, err := s.RecordsByHashBrief(ctx, randomHex(32))
	ok(t, "RecordsByHashBrief of an unknown hash", err)
	if len(rs) != 0 {
		t.Errorf("RecordsByHashBrief of an unknown hash = %d records", len(rs))
	}
}

func testRecordByCID(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r1, r2 := newRecord(p, base), newRecord(p, base)
	r1.CID, r2.CID = "bafkrei"+randomHex(20), "bafkrei"+randomHex(20)
	create(t, s, r1)
	create(t, s, r2)
	create(t, s, newRecord(p, base)) // no CID
	got, err := s.RecordByCID(ctx, r2.CID)
	ok(t, "RecordByCID", err)
	equal(t, "RecordByCID", got, r2)
}

// Token ids are per network: the same id on two networks names two records.
func testRecordByToken(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	poly := newRecord(p, base)
	poly.TokenID = 5
	eos := newRecord(p, base)
	eos.Network, eos.TokenID = seald.NetworkEOS, 5
	create(t, s, poly)
	create(t, s, eos)
	got, err := s.RecordByToken(ctx, seald.NetworkPolygon, 5)
	ok(t, "RecordByToken POLYGON", err)
	equal(t, "RecordByToken POLYGON", got, poly)
	got, err = s.RecordByToken(ctx, seald.NetworkEOS, 5)
	ok(t, "RecordByToken EOS", err)
	equal(t, "RecordByToken EOS", got, eos)
	_, err = s.RecordByToken(ctx, seald.NetworkEOS, 6)
	wantCode(t, "RecordByToken of a token not minted", err, seald.ENOTFOUND)
}

// The payload comes back byte for byte, binary included.
func testPayload(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	blob := []byte{0, 1, 2, 0xfe, 0xff, '\n', 0}
	r1, r2 := newRecord(p, base), newRecord(p, base)
	ok(t, "CreateRecord", s.CreateRecord(ctx, r1, blob))
	big := bytes.Repeat([]byte(`{"k":"v"}`), 100_000)
	ok(t, "CreateRecord", s.CreateRecord(ctx, r2, big))
	got, err := s.Payload(ctx, r1.Reference)
	ok(t, "Payload", err)
	if !bytes.Equal(got, blob) {
		t.Errorf("Payload = %x, want %x", got, blob)
	}
	got, err = s.Payload(ctx, r2.Reference)
	ok(t, "Payload", err)
	if !bytes.Equal(got, big) {
		t.Errorf("Payload of %d bytes came back as %d bytes", len(big), len(got))
	}
	empty := newRecord(p, base)
	ok(t, "CreateRecord with an empty payload", s.CreateRecord(ctx, empty, []byte{}))
	got, err = s.Payload(ctx, empty.Reference)
	ok(t, "Payload", err)
	if got == nil || len(got) != 0 {
		t.Errorf("empty Payload = %#v, want empty and not nil", got)
	}
}

// Many goroutines creating records at once all succeed: writers queue instead of failing with "busy". With
// a harness that can open a second Store on the database, half of them write through it, as a second
// process (the CLI beside `seald serve`) would.
func testConcurrentCreate(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	stores := []seald.Store{s}
	if _, ok := s.(Reopener); ok {
		stores = append(stores, reopen(t, s))
	}
	const workers, each = 16, 8
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	refs := make(chan string, workers*each)
	for w := range workers {
		st := stores[w%len(stores)]
		wg.Go(func() {
			for range each {
				r := newRecord(p, base)
				if err := st.CreateRecord(ctx, r, []byte("{}"), &seald.Job{Kind: seald.JobStore, RunAt: base}); err != nil {
					errs <- fmt.Errorf("%s: %w", r.Reference, err)
					continue
				}
				refs <- r.Reference
			}
		})
	}
	wg.Wait()
	close(errs)
	close(refs)
	for err := range errs {
		t.Errorf("concurrent CreateRecord: %v", err)
	}
	n := 0
	for ref := range refs {
		record(t, s, ref)
		n++
	}
	counts, err := s.CountJobs(ctx)
	ok(t, "CountJobs", err)
	if n != workers*each || counts[seald.JobStore] != workers*each {
		t.Errorf("%d records created and %d jobs stored, want %d of each", n, counts[seald.JobStore], workers*each)
	}
}

// The bulk path stores records exactly as CreateRecord does, all or none.
func testBulkInsert(t *testing.T, s seald.Store) {
	ctx := t.Context()
	bulk, isBulk := s.(BulkInserter)
	if !isBulk {
		t.Skipf("%T has no BulkInsertRecords: test skipped", s)
	}
	_, p := tenant(t, s)
	batch := emptyBatch(t, s, seald.NetworkEOS)
	rs := make([]*seald.Record, 500)
	for i := range rs {
		rs[i] = newRecord(p, base.Add(time.Duration(i)*time.Millisecond))
	}
	rs[0] = fullRecord(p, batch.ID)
	rs[1].DisclosurePath = []string{"0x" + randomHex(32)} // a disclosure path and no Merkle path
	ok(t, "BulkInsertRecords", bulk.BulkInsertRecords(ctx, rs))
	equal(t, "bulk-inserted full record", record(t, s, rs[0].Reference), rs[0])
	equal(t, "bulk-inserted record with a disclosure path only", record(t, s, rs[1].Reference), rs[1])
	equal(t, "bulk-inserted minimal record", record(t, s, rs[499].Reference), rs[499])
	byHash, err := s.RecordsByHash(ctx, rs[250].Hash)
	ok(t, "RecordsByHash", err)
	equal(t, "RecordsByHash of a bulk-inserted record", byHash, []*seald.Record{rs[250]})

	fresh, dup := newRecord(p, base), newRecord(p, base)
	dup.Reference = rs[1].Reference
	if err := bulk.BulkInsertRecords(ctx, []*seald.Record{fresh, dup}); err == nil {
		t.Fatal("BulkInsertRecords with a taken reference succeeded")
	}
	_, err = s.Record(ctx, fresh.Reference)
	wantCode(t, "Record of a failed bulk insert", err, seald.ENOTFOUND)
}

// The records waiting in each state that is not final are counted, with the creation time of the oldest;
// final states and empty states are absent.
func testCountWaiting(t *testing.T, s seald.Store) {
	ctx := t.Context()
	got, err := s.CountWaiting(ctx)
	ok(t, "CountWaiting", err)
	equal(t, "CountWaiting of an empty store", got, map[seald.State]seald.Waiting{})
	_, p := tenant(t, s)
	for i, st := range []seald.State{seald.StatePending, seald.StatePending, seald.StateIPFSStored, seald.StateCompleted, seald.StateFailed} {
		r := newRecord(p, base.Add(time.Duration(i)*time.Minute))
		r.State = st
		create(t, s, r)
	}
	got, err = s.CountWaiting(ctx)
	ok(t, "CountWaiting", err)
	equal(t, "CountWaiting", got, map[seald.State]seald.Waiting{
		seald.StatePending:    {Count: 2, Oldest: base},
		seald.StateIPFSStored: {Count: 1, Oldest: base.Add(2 * time.Minute)},
	})
}

// CountWaiting counts from one snapshot: while records move from PENDING to IPFS_STORED, every count still
// finds each record once (counted state by state, a record that moved between two counts was counted twice).
func testCountWaitingWhileMoving(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	const n = 60
	for i := range n {
		r := newRecord(p, base.Add(time.Duration(i)*time.Second))
		create(t, s, r, &seald.Job{Kind: seald.JobStore, Reference: r.Reference, RunAt: base})
	}
	moved := make(chan error, 1)
	go func() {
		defer close(moved)
		for range n {
			jobs, err := s.ClaimJobs(ctx, []string{seald.JobStore}, 1, base.Add(time.Hour), time.Minute)
			if err == nil && len(jobs) == 1 {
				u := &seald.RecordUpdate{When: seald.StatePending, State: seald.StateIPFSStored, At: base}
				err = s.CompleteJob(ctx, jobs[0], u, true)
			}
			if err != nil {
				moved <- err
				return
			}
		}
	}()
	counts := 0
	for done := false; !done; counts++ {
		select {
		case err := <-moved:
			ok(t, "moving the records", err)
			done = true
		default:
		}
		got, err := s.CountWaiting(ctx)
		ok(t, "CountWaiting", err)
		if total := got[seald.StatePending].Count + got[seald.StateIPFSStored].Count; total != n {
			t.Fatalf("count %d while records move: %d PENDING + %d IPFS_STORED, want %d in all", counts,
				got[seald.StatePending].Count, got[seald.StateIPFSStored].Count, n)
		}
	}
}

// ListRecords pages through one project's records newest first (ties newest inserted first) from a cursor,
// with the filters, and never shows another project's records; a cursor of another project is an empty page.
func testListRecords(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	_, other := tenant(t, s)
	var rs []*seald.Record
	for i, at := range []time.Duration{time.Second, 0, 3 * time.Second, 2 * time.Second, 2 * time.Second} {
		r := newRecord(p, base.Add(at))
		if i%2 == 1 {
			r.Status, r.State = seald.StatusSuspended, seald.StateCompleted
		}
		create(t, s, r)
		rs = append(rs, r)
	}
	foreign := newRecord(other, base.Add(time.Hour))
	create(t, s, foreign)
	newest := []string{rs[2].Reference, rs[4].Reference, rs[3].Reference, rs[0].Reference, rs[1].Reference}

	page := func(q seald.RecordQuery) []string {
		t.Helper()
		got, err := s.ListRecords(ctx, q)
		ok(t, "ListRecords", err)
		if got.Resume != "" {
			t.Errorf("ListRecords %+v: resume after %s; want none (fewer records than the bound)", q, got.Resume)
		}
		return references(got.Records)
	}
	all := seald.RecordQuery{ProjectID: p.ProjectID, Limit: 10}
	equal(t, "ListRecords all", page(all), newest)
	got, err := s.ListRecords(ctx, all)
	ok(t, "ListRecords", err)
	equal(t, "ListRecords whole record", got.Records[0], rs[2])

	var walked []string
	q := seald.RecordQuery{ProjectID: p.ProjectID, Limit: 2}
	for {
		refs := page(q)
		if len(refs) == 0 {
			break
		}
		walked = append(walked, refs...)
		q.After = refs[len(refs)-1]
	}
	equal(t, "ListRecords paged by 2", walked, newest)

	equal(t, "ListRecords SUSPENDED", page(seald.RecordQuery{ProjectID: p.ProjectID, Status: seald.StatusSuspended, Limit: 10}),
		[]string{rs[3].Reference, rs[1].Reference})
	equal(t, "ListRecords PENDING", page(seald.RecordQuery{ProjectID: p.ProjectID, State: seald.StatePending, Limit: 10}),
		[]string{rs[2].Reference, rs[4].Reference, rs[0].Reference})
	equal(t, "ListRecords ACTIVE and COMPLETED", page(seald.RecordQuery{ProjectID: p.ProjectID, Status: seald.StatusActive,
		State: seald.StateCompleted, Limit: 10}), []string{})
	equal(t, "ListRecords from 1 s to 3 s", page(seald.RecordQuery{ProjectID: p.ProjectID, Since: base.Add(time.Second),
		Until: base.Add(3 * time.Second), Limit: 10}), []string{rs[4].Reference, rs[3].Reference, rs[0].Reference})
	equal(t, "ListRecords since 2 s, SUSPENDED", page(seald.RecordQuery{ProjectID: p.ProjectID, Since: base.Add(2 * time.Second),
		Status: seald.StatusSuspended, Limit: 10}), []string{rs[3].Reference})
	equal(t, "ListRecords until 1 s, paged", page(seald.RecordQuery{ProjectID: p.ProjectID, Until: base.Add(time.Second),
		After: rs[0].Reference, Limit: 10}), []string{rs[1].Reference})
	equal(t, "ListRecords of the other project", page(seald.RecordQuery{ProjectID: other.ProjectID, Limit: 10}),
		[]string{foreign.Reference})
	equal(t, "ListRecords after another project's record", page(seald.RecordQuery{ProjectID: p.ProjectID,
		After: foreign.Reference, Limit: 10}), []string{})
}

// ListRecords filtered by status or state examines at most q.Walk records a page: a page with fewer matches
// than its limit says where to resume, and following the pages (after the last record of a full page, after
// Resume otherwise) finds every match once, in order, whether the matches lie within the first walk or
// beyond it, across records created at the same time, within a date range; a walk that reaches the last
// record does not resume. Another project's records are not walked.
func testListRecordsWalk(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	_, other := tenant(t, s)
	// rs[i] is the i-th newest; rs[2] and rs[3], rs[5] and rs[6] were created at the same time (the newer
	// inserted last). Created oldest first, with another project's record between each.
	const n = 12
	rs := make([]*seald.Record, n)
	for i := n - 1; i >= 0; i-- {
		at := time.Duration(n-i) * time.Second
		if i == 2 || i == 5 {
			at -= time.Second
		}
		rs[i] = newRecord(p, base.Add(at))
		switch i {
		case 4, 5, 6, 11:
			rs[i].State = seald.StateFailed
		case 0, 7:
			rs[i].Status = seald.StatusSuspended
		}
		create(t, s, rs[i])
		create(t, s, newRecord(other, base.Add(at)))
	}
	refs := func(is ...int) []string {
		out := []string{}
		for _, i := range is {
			out = append(out, rs[i].Reference)
		}
		return out
	}
	type step struct {
		records []string
		resume  string
	}
	follow := func(q seald.RecordQuery) (found []string, steps []step) {
		t.Helper()
		for range 2 * n {
			got, err := s.ListRecords(ctx, q)
			ok(t, "ListRecords", err)
			steps = append(steps, step{references(got.Records), got.Resume})
			found = append(found, references(got.Records)...)
			switch {
			case len(got.Records) == q.Limit:
				if got.Resume != "" {
					t.Errorf("ListRecords %+v: a full page resumes after %s", q, got.Resume)
				}
				q.After = got.Records[len(got.Records)-1].Reference
			case got.Resume != "":
				if !got.ResumeCreated.Equal(record(t, s, got.Resume).CreatedAt) {
					t.Errorf("ListRecords %+v: resume created %v, want its record's", q, got.ResumeCreated)
				}
				q.After = got.Resume
			default:
				return found, steps
			}
		}
		t.Fatalf("ListRecords %+v: still resuming after %d pages", q, 2*n)
		return nil, nil
	}
	failed := seald.RecordQuery{ProjectID: p.ProjectID, State: seald.StateFailed, Limit: 2, Walk: 3}
	found, steps := follow(failed)
	equal(t, "ListRecords FAILED, followed", found, refs(4, 5, 6, 11))
	equal(t, "ListRecords FAILED, pages", steps, []step{{refs(), rs[2].Reference}, {refs(4, 5), ""},
		{refs(6), rs[8].Reference}, {refs(11), ""}})

	suspended := seald.RecordQuery{ProjectID: p.ProjectID, Status: seald.StatusSuspended, Limit: 2, Walk: 3}
	found, steps = follow(suspended)
	equal(t, "ListRecords SUSPENDED, followed", found, refs(0, 7))
	equal(t, "ListRecords SUSPENDED, pages", steps, []step{{refs(0), rs[2].Reference}, {refs(), rs[5].Reference},
		{refs(7), rs[8].Reference}, {refs(), ""}})

	// The dates bound the walk: rs[10] and rs[11] are before Since, and are not examined.
	dated := failed
	dated.Since = rs[9].CreatedAt
	found, steps = follow(dated)
	equal(t, "ListRecords FAILED since, followed", found, refs(4, 5, 6))
	equal(t, "ListRecords FAILED since, pages", steps, []step{{refs(), rs[2].Reference}, {refs(4, 5), ""},
		{refs(6), rs[8].Reference}, {refs(), ""}})

	// From a cursor, with an end of the dates after it: the cursor bounds the walk.
	cursor := failed
	cursor.After, cursor.Until = rs[3].Reference, rs[0].CreatedAt
	_, steps = follow(cursor)
	equal(t, "ListRecords FAILED after a cursor, until, pages", steps, []step{{refs(4, 5), ""},
		{refs(6), rs[8].Reference}, {refs(11), ""}})

	// A walk as long as the project is never bounded; neither is a list without a status or state filter.
	whole := failed
	whole.Walk, whole.Limit = n, 10
	_, steps = follow(whole)
	equal(t, "ListRecords FAILED, one walk", steps, []step{{refs(4, 5, 6, 11), ""}})
	unfiltered := seald.RecordQuery{ProjectID: p.ProjectID, Limit: 20, Walk: 1}
	found, _ = follow(unfiltered)
	equal(t, "ListRecords unfiltered, bound ignored", found, refs(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11))
}

// CountProjectRecords counts one project's records only, by status, by state and by interval of creation
// (an interval includes its start and not its end).
func testCountProjectRecords(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	_, other := tenant(t, s)
	day := 24 * time.Hour
	for i, at := range []time.Duration{0, time.Hour, day, day + time.Minute, 2*day - time.Millisecond, 3 * day} {
		r := newRecord(p, base.Add(at))
		if i%2 == 1 {
			r.Status, r.State = seald.StatusRevoked, seald.StateCompleted
		}
		create(t, s, r)
	}
	create(t, s, newRecord(other, base))
	got, err := s.CountProjectRecords(ctx, p.ProjectID, []time.Time{base, base.Add(day), base.Add(2 * day)})
	ok(t, "CountProjectRecords", err)
	equal(t, "CountProjectRecords", got, &seald.RecordCounts{
		ByStatus: map[seald.Status]int{seald.StatusActive: 3, seald.StatusRevoked: 3},
		ByState:  map[seald.State]int{seald.StatePending: 3, seald.StateCompleted: 3},
		PerDay:   []int{2, 3},
	})
	got, err = s.CountProjectRecords(ctx, "prj_none", nil)
	ok(t, "CountProjectRecords of no project", err)
	equal(t, "CountProjectRecords of no project", got, &seald.RecordCounts{ByStatus: map[seald.Status]int{}, ByState: map[seald.State]int{}})
}
