package pipeline_test

import (
	"testing"
	"time"

	"seald.dev/seald"
)

// TestAdaptiveBatching checks the leader's batching rule: a batch leaves as soon as no batch transaction is
// in flight, whatever MaxWait says (an hour here, so the old rule, which held a lone record for MaxWait,
// would leave it waiting past the test's deadline); while one is in flight the records that arrive wait
// and leave together, in batches of at most MaxRecords.
func TestAdaptiveBatching(t *testing.T) {
	e := newEnv(t)
	e.maxWait = time.Hour
	e.start(4)

	lone := e.seal(0)
	e.wait(lone.Reference, "anchored", (*seald.Record).Anchored) // ANCHORED, or on past it between two looks
	if got := e.chain.minedBatches(); got != 1 {
		t.Fatalf("after a lone record: %d batches mined, want 1", got)
	}

	e.chain.setHoldBatches()
	first := e.seal(1)
	e.waitState(first.Reference, seald.StateAnchorSubmitted) // its batch is in flight, held in the pool
	var behind []*seald.Record
	for i := range 10 {
		behind = append(behind, e.seal(2+i))
	}
	for _, r := range behind {
		e.waitState(r.Reference, seald.StateIPFSStored)
	}
	// The leader looks at the queue every poll (10 ms) and is woken by each stored record; none of those
	// looks may build a batch while one is in flight.
	time.Sleep(100 * time.Millisecond)
	if got := e.chain.built(); got != 2 {
		t.Fatalf("%d batch transactions built with one in flight, want 2 (the lone record's and the held one)", got)
	}
	for _, r := range behind {
		got, err := e.store.Record(t.Context(), r.Reference)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != seald.StateIPFSStored {
			t.Fatalf("%s left while a batch was in flight: %s", r.Reference, got.State)
		}
	}

	e.chain.releaseBatches()
	sizes := map[int64]int{} // batch id -> records
	for _, r := range behind {
		sizes[e.wait(r.Reference, "anchored", (*seald.Record).Anchored).BatchID]++
	}
	// Ten records waited behind the held batch: they leave as 4, 4 and 2 (MaxRecords 4), one after the other.
	if len(sizes) != 3 {
		t.Fatalf("the 10 waiting records left in %d batches (%v), want 3 of at most 4", len(sizes), sizes)
	}
	for first, n := range sizes {
		if n > 4 {
			t.Fatalf("batch %d holds %d records, over MaxRecords 4", first, n)
		}
	}
	if got := e.chain.minedBatches(); got != 5 {
		t.Fatalf("%d batches mined, want 5 (1 lone, 1 held, 3 behind it)", got)
	}
}
