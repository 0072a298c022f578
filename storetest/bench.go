package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"seald"
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
