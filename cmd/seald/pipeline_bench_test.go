package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/evm"
	"seald.dev/seald/internal/wiring"
	"seald.dev/seald/ipfs"
	"seald.dev/seald/mail"
	"seald.dev/seald/pipeline"
	"seald.dev/seald/service"
	"seald.dev/seald/sqlite"
)

// BenchmarkPipelineEmbedded measures the whole pipeline on the embedded defaults, in process: the Service
// accepting authentications from 64 concurrent callers (the API's work minus HTTP) into SQLite, and the
// Pipeline taking each record through the embedded IPFS store, the embedded chain (batches of up to 1024),
// the mail outbox and the signature, to COMPLETED. b.N is the number of records. It reports
//
//	records/s   records COMPLETED per second, from the first acceptance to the last completion
//	intake/s    authentications accepted (durably committed) per second while the pipeline runs beside
//	p50-ms, p95-ms  from a record's acceptance to the confirmation of its batch (ANCHORED)
//	p50c-ms, p95c-ms  from a record's acceptance to COMPLETED
//	sustained/s  records COMPLETED per second in the second half of the intake window: the rate the
//	             pipeline sustains beside intake, rather than one that counts the drain after it. Only
//	             meaningful when paced (below); a burst is over before the first batch is anchored.
//
// By default the 64 callers submit as fast as they can (a burst). With SEALD_BENCH_PACE=R they submit R
// records per second in total, which is the "sustained" load: with b.N = 60*R, a 60-second run.
// "before" runs without group commit, without group puts and with serve's former 8 workers; "after" with
// all three as serve now runs them. Run it with -benchtime=5000x or more, so that batches fill.
func BenchmarkPipelineEmbedded(b *testing.B) {
	for _, c := range []struct {
		name    string
		group   bool
		workers int
	}{{"before", false, 8}, {"after", true, pipeline.DefaultWorkers}} {
		b.Run(c.name, func(b *testing.B) { benchPipeline(b, c.group, c.workers) })
	}
}

func benchPipeline(b *testing.B, group bool, workers int) {
	ctx := context.Background()
	dir := b.TempDir()
	secrets, _, err := wiring.LoadSecrets(filepath.Join(dir, "secrets.json"), "")
	if err != nil {
		b.Fatal(err)
	}
	var sopts []sqlite.Option
	var iopts []ipfs.EmbeddedOption
	if !group {
		sopts, iopts = []sqlite.Option{sqlite.WithoutGroupCommit()}, []ipfs.EmbeddedOption{ipfs.WithoutGroupPut()}
	}
	store, err := sqlite.Open(ctx, filepath.Join(dir, "seald.db"), sopts...)
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	blobs, err := ipfs.OpenEmbedded(filepath.Join(dir, "ipfs"), iopts...)
	if err != nil {
		b.Fatal(err)
	}
	defer blobs.Close()
	chain, err := evm.OpenEmbedded(filepath.Join(dir, "chain"), evm.EmbeddedOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer chain.Close()
	anchorer, err := chain.Anchorer(ctx, seald.NetworkPolygon)
	if err != nil {
		b.Fatal(err)
	}
	defer anchorer.Close()
	mailer, err := mail.Open("", "seald@localhost", filepath.Join(dir, "outbox"))
	if err != nil {
		b.Fatal(err)
	}
	svc := &service.Service{Store: store, Secrets: secrets, Blobs: blobs, Canonicalize: wiring.CanonicalizeData,
		PublicURL: "http://127.0.0.1", Chains: map[string]seald.Chain{seald.NetworkPolygon: anchorer.Chain()}}
	tm := &timings{}
	pipe := &pipeline.Pipeline{Store: timedStore{store, tm}, Secrets: secrets, Blobs: timedBlobs{blobs, tm},
		Anchorers: map[string]seald.Anchorer{seald.NetworkPolygon: anchorer}, Mailer: timedMailer{mailer, tm},
		Link: svc.VerificationLink, Workers: workers,
		Anchor: pipeline.AnchorPolicy{MaxRecords: 1024, MaxWait: 2 * time.Second}}
	svc.Wake = pipe.Wake
	tenant, err := svc.EnsureDefaultTenant(ctx, seald.Operator())
	if err != nil {
		b.Fatal(err)
	}
	caller, err := svc.Authenticate(ctx, tenant.SubscriptionKey, tenant.APIKey)
	if err != nil {
		b.Fatal(err)
	}
	pctx, stop := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() { pipe.Run(pctx); close(stopped) }()
	defer func() { stop(); <-stopped }()

	// About 10 KB of data per record, as in the issue.
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 370)
	refs := make([]string, b.N)
	var next atomic.Int64
	pace, _ := strconv.ParseFloat(os.Getenv("SEALD_BENCH_PACE"), 64) // records/s; 0: a burst
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range 64 {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				if pace > 0 {
					time.Sleep(time.Until(start.Add(time.Duration(float64(i) / pace * float64(time.Second)))))
				}
				data := fmt.Sprintf(`{"n":%d,"student":"Ada Lovelace","text":%q}`, i, filler)
				r, err := svc.Seal(ctx, caller, &seald.SealRequest{Data: []byte(data), To: "ada@example.com"})
				if err != nil {
					b.Error(err)
					return
				}
				refs[i] = r.Reference
			}
		})
	}
	wg.Wait()
	intake := time.Since(start)
	if b.Failed() {
		return
	}
	// drained reads three things one after the other, so work moving between them can hide from it: it
	// is confirmed by every record having ended.
	for !drained(b, store) || !ended(b, store, refs) {
		if time.Since(start) > 15*time.Minute {
			b.Fatal("the pipeline did not drain in 15 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()

	batches := map[int64]*seald.Batch{}
	var lat, done []time.Duration
	sustained := 0 // records COMPLETED in the second half of the intake window
	half, end := start.Add(intake/2), start.Add(intake)
	for _, ref := range refs {
		r, err := store.Record(ctx, ref)
		if err != nil {
			b.Fatal(err)
		}
		if r.State != seald.StateCompleted {
			b.Fatalf("record %s ended %s (%s: %s)", ref, r.State, r.ErrorType, r.ErrorMessage)
		}
		bt, ok := batches[r.BatchID]
		if !ok {
			if bt, err = store.Batch(ctx, r.BatchID); err != nil {
				b.Fatal(err)
			}
			batches[r.BatchID] = bt
		}
		lat = append(lat, bt.UpdatedAt.Sub(r.CreatedAt))
		// finish sets UpdatedAt when it marks the record COMPLETED, and nothing writes the record after it.
		done = append(done, r.UpdatedAt.Sub(r.CreatedAt))
		if !r.UpdatedAt.Before(half) && r.UpdatedAt.Before(end) {
			sustained++
		}
	}
	slices.Sort(lat)
	slices.Sort(done)
	for _, bt := range batches {
		if b.N < 100 {
			break
		}
		b.Logf("batch %d: %d records, created %v after the start, confirmed %v later", bt.ID, bt.Count,
			bt.CreatedAt.Sub(start).Round(time.Millisecond), bt.UpdatedAt.Sub(bt.CreatedAt).Round(time.Millisecond))
	}
	if b.N >= 100 {
		tm.log(b)
	}
	b.Logf("intake %v, drained %v", intake.Round(time.Millisecond), elapsed.Round(time.Millisecond))
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "records/s")
	b.ReportMetric(float64(b.N)/intake.Seconds(), "intake/s")
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Milliseconds()), "p95-ms")
	b.ReportMetric(float64(done[len(done)/2].Milliseconds()), "p50c-ms")
	b.ReportMetric(float64(done[len(done)*95/100].Milliseconds()), "p95c-ms")
	b.ReportMetric(float64(sustained)/(intake/2).Seconds(), "sustained/s")
	b.ReportMetric(float64(len(batches)), "batches")
}

// ended tells whether every record is COMPLETED or FAILED.
func ended(b *testing.B, s seald.Store, refs []string) bool {
	for _, ref := range refs {
		r, err := s.Record(context.Background(), ref)
		if err != nil {
			b.Fatal(err)
		}
		if r.State != seald.StateCompleted && r.State != seald.StateFailed {
			return false
		}
	}
	return true
}

// drained tells whether every accepted record has left the pipeline: no job left, none waiting for a batch,
// no batch unconfirmed.
func drained(b *testing.B, s seald.Store) bool {
	ctx := context.Background()
	jobs, err := s.CountJobs(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if len(jobs) > 0 {
		return false
	}
	q, err := s.AnchorQueue(ctx, seald.NetworkPolygon, seald.StateIPFSStored, 1)
	if err != nil {
		b.Fatal(err)
	}
	open, err := s.OpenBatches(ctx, seald.NetworkPolygon)
	if err != nil {
		b.Fatal(err)
	}
	return len(q) == 0 && len(open) == 0
}

// timings adds up the wall time of the calls the pipeline waits on, so that the benchmark can say where a
// record's time goes (a CPU profile shows none of the waiting on fsyncs).
type timings struct {
	mu sync.Mutex
	n  map[string]int
	d  map[string]time.Duration
}

func (t *timings) add(name string, start time.Time) {
	d := time.Since(start)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == nil {
		t.n, t.d = map[string]int{}, map[string]time.Duration{}
	}
	t.n[name]++
	t.d[name] += d
}

func (t *timings) log(b *testing.B) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for name, n := range t.n {
		b.Logf("%-12s %6d calls, mean %v", name, n, (t.d[name] / time.Duration(n)).Round(10*time.Microsecond))
	}
}

type timedStore struct {
	seald.Store
	t *timings
}

func (s timedStore) ClaimJobs(ctx context.Context, kinds []string, limit int, now time.Time, lease time.Duration) ([]*seald.Job, error) {
	defer s.t.add("ClaimJobs", time.Now())
	return s.Store.ClaimJobs(ctx, kinds, limit, now, lease)
}

func (s timedStore) CompleteJob(ctx context.Context, j *seald.Job, r *seald.RecordUpdate, drop bool, next ...*seald.Job) error {
	defer s.t.add("CompleteJob", time.Now())
	return s.Store.CompleteJob(ctx, j, r, drop, next...)
}

func (s timedStore) Record(ctx context.Context, ref string) (*seald.Record, error) {
	defer s.t.add("Record", time.Now())
	return s.Store.Record(ctx, ref)
}

func (s timedStore) Payload(ctx context.Context, ref string) ([]byte, error) {
	defer s.t.add("Payload", time.Now())
	return s.Store.Payload(ctx, ref)
}

type timedBlobs struct {
	seald.BlobStore
	t *timings
}

func (b timedBlobs) Put(ctx context.Context, data []byte) (string, error) {
	defer b.t.add("ipfs.Put", time.Now())
	return b.BlobStore.Put(ctx, data)
}

type timedMailer struct {
	seald.Mailer
	t *timings
}

func (m timedMailer) Send(ctx context.Context, mail *seald.Mail) (string, error) {
	defer m.t.add("mail.Send", time.Now())
	return m.Mailer.Send(ctx, mail)
}
