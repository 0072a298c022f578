// Command tessera-peer is the peer row of seald's bench: it appends entries to a Trillian-Tessera log with
// its POSIX driver (the storage Sigstore's Rekor v2 also builds on) from concurrent writers, each waiting
// until its entry is sequenced and written to disk, and prints what it measured as one JSON object.
//
//	tessera-peer -dir DIR -n ENTRIES -writers 64 -size 400
//
// sealbench runs it beside seald's intake with the same number of entries and writers, so both figures
// come from one run on one machine. It lives in its own module so that Tessera's dependencies stay out
// of seald's.
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/storage/posix"
	"golang.org/x/mod/sumdb/note"
)

// result is the JSON that sealbench reads.
type result struct {
	Entries  int     `json:"entries"`
	Writers  int     `json:"writers"`
	Bytes    int     `json:"entry_bytes"`
	Seconds  float64 `json:"seconds"`
	Rate     float64 `json:"rate"`
	P50ms    float64 `json:"p50_ms"`
	P99ms    float64 `json:"p99_ms"`
	CPUSecs  float64 `json:"cpu_seconds"`
	Errors   int64   `json:"errors"`
	Version  string  `json:"version"`
	Batch    uint    `json:"batch_size"`
	AgeMS    float64 `json:"batch_max_age_ms"`
	TreeSize uint64  `json:"tree_size"`
}

func main() {
	dir := flag.String("dir", "", "directory of the log (created; must be empty or absent)")
	n := flag.Int("n", 10000, "entries to append")
	writers := flag.Int("writers", 64, "concurrent writers")
	size := flag.Int("size", 400, "bytes per entry")
	batch := flag.Int("batch", 0, "Tessera's batch size (0: the number of writers, so a batch leaves once every writer waits)")
	age := flag.Duration("batch-age", tessera.DefaultBatchMaxAge, "Tessera's longest batch wait")
	flag.Parse()
	if *batch == 0 {
		*batch = *writers
	}
	if *dir == "" || *n <= 0 || *writers <= 0 || *size <= 0 {
		fmt.Fprintln(os.Stderr, "usage: tessera-peer -dir DIR [-n N] [-writers W] [-size BYTES]")
		os.Exit(2)
	}
	res, err := run(*dir, *n, *writers, *size, uint(*batch), *age)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tessera-peer:", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(res)
}

func run(dir string, n, writers, size int, batch uint, age time.Duration) (*result, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	skey, _, err := note.GenerateKey(rand.Reader, "seald-bench-peer")
	if err != nil {
		return nil, err
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		return nil, err
	}
	driver, err := posix.New(ctx, posix.Config{Path: dir})
	if err != nil {
		return nil, fmt.Errorf("posix driver: %w", err)
	}
	// No antispam, as seald's intake has none either. Batching: with its default size (256) and 64 writers
	// each waiting for its entry, a batch would only leave at its maximum age; a batch of the writers'
	// number leaves as soon as they all wait, which is Tessera at its best for this load.
	opts := tessera.NewAppendOptions().WithCheckpointSigner(signer).WithBatching(batch, age)
	app, shutdown, reader, err := tessera.NewAppender(ctx, driver, opts)
	if err != nil {
		return nil, fmt.Errorf("appender: %w", err)
	}

	var next, errs atomic.Int64
	lat := make([]time.Duration, n)
	var wg sync.WaitGroup
	cpu0 := cpuTime()
	start := time.Now()
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, size)
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				rand.Read(buf) // distinct entries
				t := time.Now()
				if _, err := app.Add(ctx, tessera.NewEntry(slices.Clone(buf)))(); err != nil {
					errs.Add(1)
				}
				lat[i] = time.Since(t)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	size64, _ := reader.IntegratedSize(ctx)
	if err := shutdown(ctx); err != nil {
		return nil, fmt.Errorf("shutdown: %w", err)
	}
	slices.Sort(lat)
	ms := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))]) / float64(time.Millisecond) }
	return &result{Entries: n, Writers: writers, Bytes: size, Seconds: elapsed.Seconds(),
		Rate: float64(n) / elapsed.Seconds(), P50ms: ms(0.50), P99ms: ms(0.99), CPUSecs: cpu.Seconds(),
		Errors: errs.Load(), Version: version(), TreeSize: size64, Batch: batch,
		AgeMS: float64(age) / float64(time.Millisecond)}, nil
}

// cpuTime is the CPU this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
