package service_test

import (
	"testing"
	"time"

	"seald.dev/seald"
)

// TestVerifyAnswersTheProofItAskedFor: a lookup that asks for the proof gets it from Verify, with the Merkle
// path, though a verification otherwise reads the record brief (without the path and the batch): the rule
// that a proof needs the whole record is the service's, not each caller's (issue 40).
func TestVerifyAnswersTheProofItAskedFor(t *testing.T) {
	e := newAuthorityEnv(t)
	ctx, st, r := t.Context(), e.store, e.pubRec
	now := r.CreatedAt.Add(time.Second)
	jobs, err := st.ClaimJobs(ctx, []string{seald.JobStore}, 10, now, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		u, err := seald.Advance(seald.StatePending, seald.StepStored)
		if err != nil {
			t.Fatal(err)
		}
		u.CID, u.EncryptedFile, u.At = "bafy"+j.Reference, "ipfs://bafy"+j.Reference, now
		if err := st.CompleteJob(ctx, j, u, true); err != nil {
			t.Fatal(err)
		}
	}
	b := &seald.Batch{Network: r.Network, FirstTokenID: 1, Count: 1, Root: "0x" + hex32('a'), Nonce: 1,
		TxHash: "0x" + hex32('b'), TxHashes: []string{"0x" + hex32('b')}, RawTx: []byte{1}, State: seald.BatchSigned,
		CreatedAt: now, UpdatedAt: now}
	path := []string{"0x" + hex32('c'), "0x" + hex32('d')}
	entry := seald.BatchEntry{Reference: r.Reference, TokenID: 1, Leaf: "0x" + hex32('e'), MerklePath: path}
	if err := st.CreateBatch(ctx, b, []seald.BatchEntry{entry}, seald.TransitionOf(seald.StepPlaced), now); err != nil {
		t.Fatal(err)
	}
	b.State = seald.BatchConfirmed
	if err := st.ConfirmBatch(ctx, b, seald.TransitionOf(seald.StepAnchored), now); err != nil {
		t.Fatal(err)
	}

	v, err := e.svc.Verify(ctx, e.pub, seald.Lookup{Reference: r.Reference, Proof: true})
	if err != nil {
		t.Fatal(err)
	}
	if v.Proof == nil || v.Proof.TokenID != "1" || len(v.Proof.MerklePath) != 2 || v.Proof.MerklePath[1] != path[1] ||
		v.Proof.Root != b.Root || v.Proof.VerifySignature() != nil {
		t.Errorf("the proof asked for: %+v", v.Proof)
	}
	if v, err := e.svc.Verify(ctx, e.pub, seald.Lookup{Reference: r.Reference}); err != nil || v.Proof != nil {
		t.Errorf("a lookup that asked for no proof: %+v, %v", v, err)
	}
	// Not anchored yet: no proof, and no error.
	if v, err := e.svc.Verify(ctx, e.priv, seald.Lookup{Reference: e.privRec.Reference, Proof: true}); err != nil || v.Proof != nil {
		t.Errorf("a record not anchored: %+v, %v", v, err)
	}
}

func hex32(c byte) string {
	b := make([]byte, 64)
	for i := range b {
		b[i] = c
	}
	return string(b)
}
