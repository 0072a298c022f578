package pipeline_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"seald.dev/seald"
)

// readCounter counts the pipeline's reads of records and payloads; withoutReads, when set, takes from the
// claimed jobs the record and payload the claim read with them, as a store (or a fake) that does not read
// them would give the jobs.
type readCounter struct {
	seald.Store
	withoutReads      bool
	records, payloads atomic.Int64
}

func (c *readCounter) ClaimJobs(ctx context.Context, kinds []string, limit int, now time.Time, lease time.Duration) ([]*seald.Job, error) {
	jobs, err := c.Store.ClaimJobs(ctx, kinds, limit, now, lease)
	if c.withoutReads {
		for _, j := range jobs {
			j.Record, j.Payload = nil, nil
		}
	}
	return jobs, err
}

func (c *readCounter) Record(ctx context.Context, reference string) (*seald.Record, error) {
	c.records.Add(1)
	return c.Store.Record(ctx, reference)
}

func (c *readCounter) Payload(ctx context.Context, reference string) ([]byte, error) {
	c.payloads.Add(1)
	return c.Store.Payload(ctx, reference)
}

// runCounted seals n records and runs them to COMPLETED on a pipeline whose store is c (wrapping the env's),
// checking that each record's envelope in IPFS holds its own data.
func runCounted(t *testing.T, withoutReads bool, n int) *readCounter {
	t.Helper()
	e := newEnv(t)
	var refs []string
	for i := range n {
		refs = append(refs, e.seal(i).Reference)
	}
	c := &readCounter{Store: e.store, withoutReads: withoutReads}
	e.store = c
	e.start(4)
	e.store = c.Store // the test's own reads below are not the pipeline's
	for i, ref := range refs {
		r := e.waitState(ref, seald.StateCompleted)
		env, err := e.blobs.Get(t.Context(), r.CID)
		if err != nil {
			t.Fatalf("%s: envelope %s: %v", ref, r.CID, err)
		}
		data, err := e.svc.Secrets.OpenDetached(ref, r.DataKey, env)
		if want := fmt.Sprintf(`{"n":%d}`, i); err != nil || string(data) != want {
			t.Errorf("%s: envelope holds %q (%v), want %q", ref, data, err, want)
		}
	}
	e.halt()
	return c
}

// The runners use the record (and the store step the payload) the claim read with the job: a record goes
// from PENDING to COMPLETED without the pipeline reading a record or a payload on its own.
func TestPipelineUsesClaimedRecords(t *testing.T) {
	c := runCounted(t, false, 6)
	if r, p := c.records.Load(), c.payloads.Load(); r != 0 || p != 0 {
		t.Errorf("the pipeline read %d records and %d payloads itself, want none: the claim reads them", r, p)
	}
}

// A job that comes without its record and payload (a store or a fake that does not read them) is run all
// the same: its runner reads them.
func TestPipelineReadsWhatTheClaimLacks(t *testing.T) {
	c := runCounted(t, true, 6)
	if r, p := c.records.Load(), c.payloads.Load(); r < 6*2 || p < 6 {
		t.Errorf("the pipeline read %d records and %d payloads, want one record per job (2 a record) and one payload per store job", r, p)
	}
}
