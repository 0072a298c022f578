package storetest

import (
	"testing"
	"time"

	"seald.dev/seald"
)

var manifestTests = []test{
	{"BatchContents", testBatchContents},
}

// BatchContents answers, for any token of a CONFIRMED batch, the batch and each of its tokens in order with
// its leaf, blind and commitment (empty for a record sealed without them), and nothing for a token outside a
// confirmed batch: one still in flight, another network's, or past the batch.
func testBatchContents(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	var rs []*seald.Record
	for i := range 3 {
		r := newRecord(p, base.Add(time.Duration(i)*time.Second))
		r.Network, r.State = seald.NetworkPolygon, seald.StateIPFSStored
		r.CID = "bafkrei" + randomHex(20)
		r.EncryptedFile = "ipfs://" + r.CID
		if i != 1 {
			r.Disclosure, r.DisclosureBlind = randomHex(32), randomHex(32)
		}
		create(t, s, r)
		rs = append(rs, r)
	}
	es := entries(5, rs...)
	b := newBatch(seald.NetworkPolygon, 5, len(rs))
	ok(t, "CreateBatch", s.CreateBatch(ctx, b, es, placed, base))
	for _, id := range []uint64{5, 7} {
		_, err := s.BatchContents(ctx, seald.NetworkPolygon, id)
		wantCode(t, "BatchContents of a batch not confirmed", err, seald.ENOTFOUND)
	}
	now := base.Add(time.Hour)
	b.BlockNumber, b.BlockHash = 77, "0x"+randomHex(32)
	ok(t, "ConfirmBatch", s.ConfirmBatch(ctx, b, anchored, now))
	// A record in another batch, of the other network, is not this batch's.
	other := stored(t, s, p, seald.NetworkEOS, 0)
	ob := batch(t, s, seald.NetworkEOS, 5, other)
	ob.BlockNumber = 9
	ok(t, "ConfirmBatch EOS", s.ConfirmBatch(ctx, ob, anchored, now))

	want := &seald.BatchContents{Batch: b}
	for i, r := range rs {
		want.Tokens = append(want.Tokens, seald.BatchToken{TokenID: 5 + uint64(i), Leaf: es[i].Leaf, Blind: r.DisclosureBlind, Commitment: r.Disclosure})
	}
	for _, id := range []uint64{5, 6, 7} {
		got, err := s.BatchContents(ctx, seald.NetworkPolygon, id)
		ok(t, "BatchContents", err)
		equal(t, "BatchContents", got, want)
	}
	for _, id := range []uint64{4, 8, 1 << 63} {
		_, err := s.BatchContents(ctx, seald.NetworkPolygon, id)
		wantCode(t, "BatchContents of a token outside the batch", err, seald.ENOTFOUND)
	}
	got, err := s.BatchContents(ctx, seald.NetworkEOS, 5)
	ok(t, "BatchContents EOS", err)
	if len(got.Tokens) != 1 || got.Tokens[0].Leaf == es[0].Leaf || got.Batch.ID != ob.ID {
		t.Errorf("BatchContents of EOS token 5 = %s, want the EOS batch", show(got))
	}
}
