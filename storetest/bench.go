package storetest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
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
