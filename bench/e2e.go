package bench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"seald.dev/seald/client"

	"seald.dev/seald"
)

// E2ERun is the end-to-end section on the embedded defaults (SQLite, embedded IPFS, embedded chain, mail
// outbox) with the pipeline on: authentications offered at a steady rate for a window, then the records
// followed to COMPLETED through the store's timestamps.
type E2ERun struct {
	Store         string  `json:"store"`
	OfferedRate   float64 `json:"offered_per_second"`
	Seconds       float64 `json:"submission_seconds"`
	WarmupSeconds float64 `json:"warmup_seconds"`
	Accepted      int     `json:"accepted"`
	Errors        int64   `json:"errors"`
	FirstError    string  `json:"first_error,omitempty"`
	AcceptRate    float64 `json:"accepted_per_second"`
	// CompletedRate is the records reaching COMPLETED per second between warm-up and the end of submission.
	CompletedRate float64 `json:"completed_per_second"`
	// Completed counts the accepted records COMPLETED by the end of the drain.
	Completed    int     `json:"completed"`
	DrainSeconds float64 `json:"drain_seconds"`
	// Anchor is acceptance (record created_at) to ANCHORED (its batch's confirmation), in seconds, over
	// every accepted record; one not anchored by the end counts as the time it waited, a lower bound.
	Anchor     Latency `json:"accept_to_anchored_s"`
	Unanchored int     `json:"unanchored"`
	// Complete is acceptance to COMPLETED, in seconds, over the completed records.
	Complete Latency `json:"accept_to_completed_s"`
	// Backlog counts the accepted records by state when submission ended: where the pipeline fell behind.
	Backlog map[string]int `json:"backlog_at_end_of_submission"`
	Batches int            `json:"batches"`
	// Profile is the CPU profile of submission and drain, and where its CPU went (profile.go).
	Profile    string  `json:"profile,omitempty"`
	PeakRSSMB  float64 `json:"peak_rss_mb"`
	CPU        float64 `json:"cpu_share"`
	MachineCPU float64 `json:"machine_cpu_share"`
	// Lone is acceptance to ANCHORED, in seconds, of records sealed one at a time on the idle system before
	// the load, each waiting for the one before it to be anchored: the latency a single record meets.
	Lone      Latency `json:"lone_accept_to_anchored_s"`
	LoneCount int     `json:"lone_records"`
	// Timeline counts acceptances and completions in each second from the start of submission.
	Accepts     []int `json:"accepted_timeline"`
	Anchors     []int `json:"anchored_timeline"`
	Completions []int `json:"completed_timeline"`
}

func runE2E(ctx context.Context, cfg Config, open Opener) (*E2ERun, error) {
	sys, closeSys, err := openFresh(ctx, open, "", true)
	if err != nil {
		return nil, err
	}
	defer closeSys()
	base := sys.URL
	const workers = 64
	hc := newClient(workers)
	api := sys.client(base, hc)
	defer hc.CloseIdleConnections()
	run := &E2ERun{Store: "sqlite", OfferedRate: cfg.E2ERate, Seconds: cfg.E2EDuration.Seconds(),
		WarmupSeconds: cfg.E2EWarmup.Seconds()}

	if err := run.lone(ctx, sys, api, cfg.LoneRecords); err != nil {
		return run, err
	}

	var rss peakRSS
	rss.Reset()
	var cpu cpuMeter
	cpu.start()
	stopProfile := startProfile(cfg, "e2e")
	defer stopProfile() // on an early return; a no-op after the one below
	// Open loop: request i is due at t0 + i/rate; up to 64 are in flight, and a late one goes at once.
	interval := time.Duration(float64(time.Second) / cfg.E2ERate)
	t0 := time.Now()
	end := t0.Add(cfg.E2EDuration)
	var next, errs atomic.Int64
	var mu sync.Mutex
	var refs []string
	var firstErr error
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				due := t0.Add(time.Duration(i) * interval)
				// Stop at the end of the window, also when behind: the window is what was offered.
				if !due.Before(end) || !time.Now().Before(end) || ctx.Err() != nil {
					return
				}
				time.Sleep(time.Until(due))
				ref, err := sealOnce(ctx, api, i)
				mu.Lock()
				if err != nil {
					errs.Add(1)
					if firstErr == nil {
						firstErr = err
					}
				} else {
					refs = append(refs, ref)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	submitted := time.Now()
	run.Accepted, run.Errors = len(refs), errs.Load()
	if firstErr != nil {
		run.FirstError = firstErr.Error()
	}
	run.AcceptRate = float64(run.Accepted) / submitted.Sub(t0).Seconds()
	fmt.Fprintf(cfg.Log, "bench: e2e: %d accepted in %.1fs (%.0f/s), errors %d\n", run.Accepted,
		submitted.Sub(t0).Seconds(), run.AcceptRate, run.Errors)
	if len(refs) == 0 {
		return run, fmt.Errorf("no authentication accepted: %v", firstErr)
	}

	// Where the records are when submission ends.
	run.Backlog = map[string]int{}
	for _, ref := range refs {
		r, err := sys.Store.Record(ctx, ref)
		if err != nil {
			return run, err
		}
		run.Backlog[string(r.State)]++
	}

	// Drain: records complete nearly in acceptance order, so follow the completed prefix.
	cursor := 0
	drainEnd := time.Now().Add(cfg.E2EDrain)
	for cursor < len(refs) && time.Now().Before(drainEnd) && ctx.Err() == nil {
		r, err := sys.Store.Record(ctx, refs[cursor])
		if err != nil {
			return run, err
		}
		if r.State == seald.StateCompleted || r.State == seald.StateFailed {
			cursor++
			continue
		}
		time.Sleep(200 * time.Millisecond)
	}
	run.DrainSeconds = time.Since(submitted).Seconds()
	run.Profile = stopProfile()
	run.CPU = cpu.share()
	run.MachineCPU = cpu.machineShare()
	run.PeakRSSMB = rss.MB()
	return run, run.collect(ctx, sys.Store, refs, t0, cfg)
}

// lone seals n records one at a time, each after the one before it is ANCHORED, and keeps acceptance to
// ANCHORED (the batch's confirmation) of each. Their sequence numbers are negative, apart from the load's.
func (run *E2ERun) lone(ctx context.Context, sys *System, api *client.Client, n int) error {
	var ds []time.Duration
	for i := range n {
		ref, err := sealOnce(ctx, api, -int64(i)-2)
		if err != nil {
			return fmt.Errorf("lone record %d: %w", i, err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			r, err := sys.Store.Record(ctx, ref)
			if err != nil {
				return err
			}
			if r.BatchID != 0 {
				b, err := sys.Store.Batch(ctx, r.BatchID)
				if err != nil {
					return err
				}
				if b.State == seald.BatchConfirmed {
					ds = append(ds, b.UpdatedAt.Sub(r.CreatedAt))
					break
				}
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				return fmt.Errorf("lone record %s not anchored after 30 s (state %s)", ref, r.State)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	run.LoneCount = len(ds)
	run.Lone = seconds(ds)
	return nil
}

// collect reads every accepted record and its batch, and derives the rates and latencies from the store's
// timestamps: created_at (acceptance), the batch's confirmation (ANCHORED) and the record's last update
// when COMPLETED.
func (run *E2ERun) collect(ctx context.Context, st seald.Store, refs []string, t0 time.Time, cfg Config) error {
	now := time.Now()
	confirmed := map[int64]time.Time{}
	var anchor, complete []time.Duration
	secs := int(now.Sub(t0).Seconds()) + 1
	run.Accepts, run.Anchors, run.Completions = make([]int, secs), make([]int, secs), make([]int, secs)
	bucket := func(t time.Time) int { return min(max(int(t.Sub(t0).Seconds()), 0), secs-1) }
	from, to := t0.Add(cfg.E2EWarmup), t0.Add(cfg.E2EDuration)
	inWindow := 0
	for _, ref := range refs {
		r, err := st.Record(ctx, ref)
		if err != nil {
			return err
		}
		run.Accepts[bucket(r.CreatedAt)]++
		var anchored time.Time
		if r.BatchID != 0 {
			t, ok := confirmed[r.BatchID]
			if !ok {
				b, err := st.Batch(ctx, r.BatchID)
				if err != nil {
					return err
				}
				if b.State == seald.BatchConfirmed {
					t = b.UpdatedAt
				}
				confirmed[r.BatchID] = t
			}
			anchored = t
		}
		if anchored.IsZero() {
			run.Unanchored++
			anchor = append(anchor, now.Sub(r.CreatedAt))
		} else {
			anchor = append(anchor, anchored.Sub(r.CreatedAt))
			run.Anchors[bucket(anchored)]++
		}
		if r.State == seald.StateCompleted {
			run.Completed++
			complete = append(complete, r.UpdatedAt.Sub(r.CreatedAt))
			run.Completions[bucket(r.UpdatedAt)]++
			if !r.UpdatedAt.Before(from) && !r.UpdatedAt.After(to) {
				inWindow++
			}
		}
	}
	run.Batches = len(confirmed)
	run.CompletedRate = float64(inWindow) / to.Sub(from).Seconds()
	run.Anchor = seconds(anchor)
	run.Complete = seconds(complete)
	return nil
}

// seconds returns the percentiles of ds in seconds.
func seconds(ds []time.Duration) Latency {
	slices.Sort(ds)
	l := percentiles(ds)
	return Latency{P50: l.P50 / 1000, P95: l.P95 / 1000, P99: l.P99 / 1000, Max: l.Max / 1000}
}
