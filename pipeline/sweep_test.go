package pipeline_test

import (
	"testing"
	"time"

	"seald.dev/seald"
)

// A revocation job never gives up: neither a chain down for longer than the retries (MaxAttempts is 8
// here) nor answers marked permanent end it while the chain does not show the token revoked. While it
// fails, the store reports how long the oldest job of its kind has been failing (the metric's source).
func TestRevocationNeverGivesUp(t *testing.T) {
	e := newEnv(t)
	ref := e.seal(1).Reference
	e.start(8)
	r := e.waitState(ref, seald.StateCompleted)
	e.chain.set("rpc", 40, seald.Permanent(errDown))
	if _, err := e.svc.SetStatus(t.Context(), e.caller, ref, "REVOKED", "test"); err != nil {
		t.Fatal(err)
	}
	kind := seald.RevokeJob(seald.NetworkPolygon)
	sawFailing := false
	e.wait(ref, "revoked on chain", func(r *seald.Record) bool {
		if failing, err := e.store.OldestFailing(t.Context()); err == nil && !failing[kind].IsZero() {
			sawFailing = true
		}
		return r.RevokedOnChain
	})
	if !sawFailing {
		t.Errorf("OldestFailing never showed the failing %s job", kind)
	}
	if n := e.chain.revocations(r.TokenID); n != 1 {
		t.Errorf("token revoked %d times", n)
	}
	jobs, err := e.store.CountJobs(t.Context())
	if err != nil || jobs[kind] != 0 {
		t.Errorf("jobs left %v, %v", jobs, err)
	}
	if failing, err := e.store.OldestFailing(t.Context()); err != nil || len(failing) != 0 {
		t.Errorf("OldestFailing after the revocation: %v, %v", failing, err)
	}
}

// An erasure job never gives up either: IPFS refusing for longer than the retries only delays the deletion.
func TestErasureNeverGivesUp(t *testing.T) {
	e := newEnv(t)
	ref := e.seal(1).Reference
	e.start(8)
	r := e.waitState(ref, seald.StateCompleted)
	e.blobs.set("delete", 40, seald.Permanent(errDown))
	if _, _, err := e.svc.Erase(t.Context(), e.caller, ref, "test"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the erased copy deleted", func() bool {
		kept, _ := e.blobs.Pinned(t.Context(), r.CID)
		return !kept
	})
}

// The sweep at start re-queues what a job no longer covers: a REVOKED record whose token the chain does not
// show revoked (here the chain lost the revocation) is revoked again, and an erased record whose copy IPFS
// still keeps (here the copy came back) has it deleted again.
func TestSweepAtStart(t *testing.T) {
	e := newEnv(t)
	revoked, erased := e.seal(1).Reference, e.seal(2).Reference
	e.start(8)
	r := e.waitState(revoked, seald.StateCompleted)
	gone := e.waitState(erased, seald.StateCompleted)
	if _, err := e.svc.SetStatus(t.Context(), e.caller, revoked, "REVOKED", "test"); err != nil {
		t.Fatal(err)
	}
	e.wait(revoked, "revoked on chain", func(r *seald.Record) bool { return r.RevokedOnChain })
	envelope, err := e.blobs.Get(t.Context(), gone.CID)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.svc.Erase(t.Context(), e.caller, erased, "test"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the erased copy deleted", func() bool {
		kept, _ := e.blobs.Pinned(t.Context(), gone.CID)
		return !kept
	})
	e.halt()

	e.chain.forget(r.TokenID)
	if _, err := e.blobs.Put(t.Context(), envelope); err != nil {
		t.Fatal(err)
	}
	e.restart(8)
	waitFor(t, "the token revoked on chain again", func() bool { return e.chain.revocations(r.TokenID) == 1 })
	waitFor(t, "the erased copy deleted again", func() bool {
		kept, _ := e.blobs.Pinned(t.Context(), gone.CID)
		return !kept
	})
}

// waitFor polls cond for up to 20 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("never %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
