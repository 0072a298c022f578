package storetest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"seald.dev/seald"
)

// BenchCreateRecord measures CreateRecord as the API calls it (a record, its payload and its first job in
// one transaction) from parallel goroutines, on an empty store. Each store package runs it from its own
// BenchmarkCreateRecord.
func BenchCreateRecord(b *testing.B, s seald.Store) {
	ctx := context.Background()
	biz, p := newBusiness(fmt.Sprintf("bench %d", next()))
	if err := s.CreateBusiness(ctx, biz, p); err != nil {
		b.Fatal(err)
	}
	payload := []byte(`{"name":"Ada Lovelace","degree":"Mathematics","year":1843,"honours":true}`)
	var n atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			now := time.Now()
			r := newRecord(p, now)
			r.Reference = fmt.Sprintf("D-bench-%d", n.Add(1))
			if err := s.CreateRecord(ctx, r, payload, &seald.Job{Kind: seald.JobStore, RunAt: now}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchCreateRecordParallel measures CreateRecord under the API's load: writers goroutines (the 64
// connections) each creating records until b.N have been created, every one durable when its call
// returns. It reports records/s, the figure group commit is for.
func BenchCreateRecordParallel(b *testing.B, s seald.Store, writers int) {
	ctx := context.Background()
	biz, p := newBusiness(fmt.Sprintf("bench %d", next()))
	if err := s.CreateBusiness(ctx, biz, p); err != nil {
		b.Fatal(err)
	}
	payload := []byte(`{"name":"Ada Lovelace","degree":"Mathematics","year":1843,"honours":true}`)
	prefix := randomHex(4)
	var n atomic.Int64
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range writers {
		wg.Go(func() {
			for {
				i := n.Add(1)
				if i > int64(b.N) {
					return
				}
				now := time.Now()
				r := newRecord(p, now)
				r.Reference = fmt.Sprintf("D-%s-%d", prefix, i)
				if err := s.CreateRecord(ctx, r, payload, &seald.Job{Kind: seald.JobStore, RunAt: now}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
}

// BenchLookupsLarge fills the store with n records through BulkInsertRecords, a chunk at a time so that the
// benchmark itself never holds them all, then runs b.N lookups of the verification path (by reference and
// by hash) over them. It reports the process's peak resident memory (VmHWM, Linux only), which must stay
// far below what the records would take if anything held them all.
func BenchLookupsLarge(b *testing.B, s seald.Store, n int) {
	bulk, ok := s.(BulkInserter)
	if !ok {
		b.Skipf("%T has no BulkInsertRecords", s)
	}
	ctx := context.Background()
	biz, p := newBusiness(fmt.Sprintf("bench %d", next()))
	if err := s.CreateBusiness(ctx, biz, p); err != nil {
		b.Fatal(err)
	}
	prefix := randomHex(4)
	ref := func(i int) string { return fmt.Sprintf("D-%s-%09d", prefix, i) }
	hash := func(i int) string { return fmt.Sprintf("%064x", i) }
	const chunk = 20_000
	for from := 0; from < n; from += chunk {
		rs := make([]*seald.Record, 0, chunk)
		for i := from; i < min(n, from+chunk); i++ {
			r := newRecord(p, base)
			r.Reference, r.Hash = ref(i), hash(i)
			rs = append(rs, r)
		}
		if err := bulk.BulkInsertRecords(ctx, rs); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		k := (i * 7919) % n
		r, err := s.Record(ctx, ref(k))
		if err != nil {
			b.Fatal(err)
		}
		rs, err := s.RecordsByHash(ctx, r.Hash)
		if err != nil || len(rs) != 1 {
			b.Fatalf("RecordsByHash: %d records, %v", len(rs), err)
		}
	}
	b.StopTimer()
	if hwm := peakRSS(); hwm > 0 {
		b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MB")
	}
}

// peakRSS returns the process's peak resident set size in bytes, or 0 where /proc does not say.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb)
			return kb << 10
		}
	}
	return 0
}

// BenchNotifySave measures what the notify step does with the store after sending a record's message, from
// the pipeline's concurrent workers: the update that ends its job (e-mail sent, record COMPLETED). With
// reread, the record is read again after it, as the step did to catch an erasure that raced the send;
// without, the update checks that itself (RecordUpdate.Unerased). b.N records, each with its notify job
// claimed beforehand. It reports the process's CPU time per record (cpu-ns/op), which for a store in
// another process leaves that process out.
func BenchNotifySave(b *testing.B, s seald.Store, reread bool) {
	ctx := context.Background()
	biz, p := newBusiness(fmt.Sprintf("bench %d", next()))
	if err := s.CreateBusiness(ctx, biz, p); err != nil {
		b.Fatal(err)
	}
	payload := []byte(`{"name":"Ada Lovelace","degree":"Mathematics","year":1843,"honours":true}`)
	now := time.Now()
	var wg sync.WaitGroup
	var n atomic.Int64
	for range 64 {
		wg.Go(func() {
			for n.Add(1) <= int64(b.N) {
				r := newRecord(p, now)
				r.IsEmail = true
				r.Mail = &seald.MailRequest{To: []string{"ada@example.com"}, Subject: "Your diploma",
					Body: strings.Repeat("Your diploma is sealed. ", 20), Business: biz.Name, Project: p.Name}
				if err := s.CreateRecord(ctx, r, payload, &seald.Job{Kind: seald.JobNotify, RunAt: now}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	var jobs []*seald.Job
	for len(jobs) < b.N {
		js, err := s.ClaimJobs(ctx, []string{seald.JobNotify}, 1000, now, time.Hour)
		if err != nil || len(js) == 0 {
			b.Fatalf("ClaimJobs: %d jobs, %v", len(js), err)
		}
		jobs = append(jobs, js...)
	}
	var i atomic.Int64
	b.SetParallelism(8)
	b.ReportAllocs()
	cpu0 := CPUTime(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			j := jobs[i.Add(1)-1]
			at := time.Now()
			u := &seald.RecordUpdate{When: seald.StatePending, State: seald.StateCompleted, ClearError: true,
				MessageID: "<" + j.Reference + "@seald>", Signature: "sig", At: at, Unerased: !reread}
			if err := s.CompleteJob(ctx, j, u, false); err != nil {
				b.Error(err)
				return
			}
			if reread {
				if _, err := s.Record(ctx, j.Reference); err != nil {
					b.Error(err)
					return
				}
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(CPUTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// CPUTime is the CPU time the process has used so far, user and system, for benchmarks that report CPU per
// operation beside wall time (storetest's and the stores' own).
func CPUTime(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchVerifyReads reads records as pipeline-complete as the bench's (a Merkle path, an e-mail, a
// signature) the two ways a verification can: whole (Record, RecordsByHash), as with a proof, and brief
// (RecordBrief, RecordsByHashBrief), as without one. Each op is one read by reference and one by hash.
func BenchVerifyReads(b *testing.B, s seald.Store) {
	ctx := context.Background()
	biz, p := newBusiness(fmt.Sprintf("bench %d", next()))
	if err := s.CreateBusiness(ctx, biz, p); err != nil {
		b.Fatal(err)
	}
	const n = 2000
	rs := make([]*seald.Record, n)
	for i := range rs {
		r := fullRecord(p, 0)
		r.ErasedAt, r.TokenID = time.Time{}, uint64(i+1) // token ids are unique per network
		r.MerklePath = make([]string, 10)
		for k := range r.MerklePath {
			r.MerklePath[k] = "0x" + randomHex(32)
		}
		if err := s.CreateRecord(ctx, r, nil); err != nil {
			b.Fatal(err)
		}
		rs[i] = r
	}
	for _, c := range []struct {
		name   string
		byRef  func(context.Context, string) (*seald.Record, error)
		byHash func(context.Context, string) ([]*seald.Record, error)
	}{{"whole", s.Record, s.RecordsByHash}, {"brief", s.RecordBrief, s.RecordsByHashBrief}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := CPUTime(b)
			for i := range b.N {
				r := rs[(i*7919)%n]
				if _, err := c.byRef(ctx, r.Reference); err != nil {
					b.Fatal(err)
				}
				if got, err := c.byHash(ctx, r.Hash); err != nil || len(got) != 1 {
					b.Fatalf("by hash: %d records, %v", len(got), err)
				}
			}
			b.ReportMetric(float64(CPUTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchCreateBacklog measures what a create writes while a backlog waits in the pipeline (issue 45, item 3):
// backlog creates whose payloads and store jobs are never consumed (as after an intake burst that the
// pipeline drains later), then b.N more from writers goroutines, every reference random as the service makes
// them. meter starts counting the bytes the store's commits write to its log and returns the function that
// stops and gives them; the figure reported is those bytes per record of the b.N.
func BenchCreateBacklog(b *testing.B, s seald.Store, backlog, writers int, meter func() (func() (int64, error), error)) {
	ctx := context.Background()
	biz, p := newBusiness(fmt.Sprintf("bench %d", next()))
	if err := s.CreateBusiness(ctx, biz, p); err != nil {
		b.Fatal(err)
	}
	payload := []byte(`{"name":"Ada Lovelace","degree":"Mathematics","year":1843,"honours":true}`)
	create := func(n int) {
		var left atomic.Int64
		left.Store(int64(n))
		var wg sync.WaitGroup
		for range writers {
			wg.Go(func() {
				for left.Add(-1) >= 0 {
					now := time.Now()
					r := newRecord(p, now)
					r.Reference = "D-" + randomHex(16)
					if err := s.CreateRecord(ctx, r, payload, &seald.Job{Kind: seald.JobStore, RunAt: now}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	create(backlog)
	stop, err := meter()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	create(b.N)
	b.StopTimer()
	wal, err := stop()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(wal)/float64(b.N), "wal-B/op")
}

// CreatePending creates n records of a new business, each with its payload and a store job due at now, one
// after the other, and returns their references: a backlog for a store's own tests of how its jobs are kept.
func CreatePending(t testing.TB, s seald.Store, n int, now time.Time) []string {
	t.Helper()
	biz, p := newBusiness(fmt.Sprintf("pending %d", next()))
	if err := s.CreateBusiness(t.Context(), biz, p); err != nil {
		t.Fatal(err)
	}
	refs := make([]string, n)
	for i := range refs {
		r := newRecord(p, now)
		if err := s.CreateRecord(t.Context(), r, []byte(`{"n":1}`), &seald.Job{Kind: seald.JobStore, RunAt: now}); err != nil {
			t.Fatal(err)
		}
		refs[i] = r.Reference
	}
	return refs
}
