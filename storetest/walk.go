package storetest

import (
	"testing"
	"time"

	"seald.dev/seald"
)

// Walk creates n records of one new project and takes them through the pipeline's steps as the pipeline
// does, with values of the sizes the pipeline writes (a CID, an IPFS URI, a disclosure commitment, a leaf, a
// signature, a Message-ID): stored, placed in one batch, anchored, and completed with their e-mail. It calls
// between with each step's name ("created", "stored", "placed", "anchored", "completed") once the step is
// done for all n, so that a store's own test can look at its rows as they change. It returns the records as
// created.
func Walk(t *testing.T, s seald.Store, n int, between func(step string)) []*seald.Record {
	t.Helper()
	ctx := t.Context()
	_, p := tenant(t, s)
	rs := make([]*seald.Record, n)
	for i := range rs {
		rs[i] = newRecord(p, base)
		create(t, s, rs[i], &seald.Job{Kind: seald.JobStore, RunAt: base})
	}
	between("created")
	at := base.Add(time.Second)
	for _, j := range claimAll(t, s, []string{seald.JobStore}, at) {
		cid := "bafkrei" + randomHex(26)
		ok(t, "CompleteJob to IPFS_STORED", s.CompleteJob(ctx, j, &seald.RecordUpdate{When: seald.StatePending,
			State: seald.StateIPFSStored, CID: cid, EncryptedFile: "ipfs://" + cid, Disclosure: randomHex(32),
			DisclosureBlind: randomHex(32), At: at}, true))
	}
	between("stored")
	b := newBatch(p.Network, 1, n)
	at = at.Add(time.Second)
	ok(t, "CreateBatch", s.CreateBatch(ctx, b, entries(1, rs...), placed, at))
	between("placed")
	at = at.Add(time.Second)
	b.State, b.BlockNumber, b.BlockHash, b.UpdatedAt = seald.BatchConfirmed, 9, "0x"+randomHex(32), at
	ok(t, "ConfirmBatch", s.ConfirmBatch(ctx, b, anchored, at))
	between("anchored")
	at = at.Add(time.Second)
	for _, j := range claimAll(t, s, []string{seald.JobNotify}, at) {
		ok(t, "CompleteJob to COMPLETED", s.CompleteJob(ctx, j, &seald.RecordUpdate{When: seald.StateAnchored,
			State: seald.StateCompleted, ClearError: true, MessageID: "<D-" + randomHex(16) + "@seald.localhost>",
			Signature: randomHex(44), At: at}, false))
	}
	between("completed")
	return rs
}
