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
// outbox) with the pipeline on: the offered rate is stepped (E2ERate, then half of it more at each step:
// 1,000, 1,500, 2,000, ...) on one system, each step a window of open-loop submissions followed to COMPLETED
// through the store's timestamps, until a step falls behind (COMPLETED under the offered rate, or
// acceptance → ANCHORED p95 at 5 s or more) or the steps run out.
type E2ERun struct {
	Store string    `json:"store"`
	Steps []E2EStep `json:"steps"`
	// SustainedMax is the highest offered rate of a step that kept up; 0 when the first one did not.
	SustainedMax float64 `json:"sustained_max_per_second"`
	// FellBehind says whether a step fell behind (the last one); false: every step offered kept up, and the
	// sustained maximum is a lower bound.
	FellBehind bool    `json:"fell_behind"`
	PeakRSSMB  float64 `json:"peak_rss_mb"`
	// Lone is acceptance to ANCHORED, in seconds, of records sealed one at a time on the idle system before
	// the load, each waiting for the one before it to be anchored: the latency a single record meets.
	Lone      Latency `json:"lone_accept_to_anchored_s"`
	LoneCount int     `json:"lone_records"`
	// Timeline counts acceptances, anchorings and completions in each second from the start of the first
	// step; StepStarts are the seconds at which each step's submission began.
	Accepts     []int     `json:"accepted_timeline"`
	Anchors     []int     `json:"anchored_timeline"`
	Completions []int     `json:"completed_timeline"`
	StepStarts  []float64 `json:"step_starts_s"`
}

// E2EStep is one offered rate of the end-to-end section.
type E2EStep struct {
	OfferedRate   float64 `json:"offered_per_second"`
	Seconds       float64 `json:"submission_seconds"`
	WarmupSeconds float64 `json:"warmup_seconds"`
	Accepted      int     `json:"accepted"`
	Errors        int64   `json:"errors"`
	FirstError    string  `json:"first_error,omitempty"`
	AcceptRate    float64 `json:"accepted_per_second"`
	// CompletedRate is the step's records reaching COMPLETED per second between warm-up and the end of
	// submission (the window).
	CompletedRate float64 `json:"completed_per_second"`
	// CPUSeconds is this process's CPU time in the window (server, store, embedded parts and the load
	// generator); CPUPerRecordMs is it divided by the records COMPLETED in the window.
	CPUSeconds     float64 `json:"window_cpu_seconds"`
	CPUPerRecordMs float64 `json:"cpu_ms_per_completed_record"`
	// Completed counts the step's records COMPLETED by the end of its drain.
	Completed    int     `json:"completed"`
	DrainSeconds float64 `json:"drain_seconds"`
	// Drained says whether every record of the step was COMPLETED (or FAILED) before the next step began.
	Drained bool `json:"drained"`
	// Anchor is acceptance (record created_at) to ANCHORED (its batch's confirmation), in seconds, over
	// every accepted record; one not anchored by the end counts as the time it waited, a lower bound.
	Anchor     Latency `json:"accept_to_anchored_s"`
	Unanchored int     `json:"unanchored"`
	// Complete is acceptance to COMPLETED, in seconds, over the completed records.
	Complete Latency `json:"accept_to_completed_s"`
	// Backlog counts the accepted records by state when submission ended: where the pipeline fell behind.
	Backlog map[string]int `json:"backlog_at_end_of_submission"`
	Batches int            `json:"batches"`
	// KeptUp: COMPLETED at e2eKeptUp of the offered rate or more, p95 under e2eP95Target, no errors, and
	// every record COMPLETED within the drain time.
	KeptUp bool `json:"kept_up"`
	// Profile is the CPU profile of the step's submission window (the window of CPUPerRecordMs, warm-up
	// included; the bench's own reads of the records come after it), and where its CPU went (profile.go).
	Profile string `json:"profile,omitempty"`
	// CPU and MachineCPU are this process's and the whole machine's share of the cores in the window.
	CPU        float64 `json:"cpu_share"`
	MachineCPU float64 `json:"machine_cpu_share"`
}

func runE2E(ctx context.Context, cfg Config, open Opener) (*E2ERun, error) {
	sys, closeSys, err := openFresh(ctx, open, "", true)
	if err != nil {
		return nil, err
	}
	defer closeSys()
	const workers = 64
	hc := newClient(workers)
	api := sys.client(sys.URL, hc)
	defer hc.CloseIdleConnections()
	run := &E2ERun{Store: "sqlite"}

	if err := run.lone(ctx, sys, api, cfg.LoneRecords); err != nil {
		return run, err
	}

	var rss peakRSS
	rss.Reset()
	defer func() { run.PeakRSSMB = rss.MB() }()
	start := time.Now()
	var seq int64
	for k := range max(cfg.E2ESteps, 1) {
		rate := cfg.E2ERate * (1 + float64(k)/2)
		step, refs, err := run.step(ctx, cfg, sys, api, rate, &seq, start)
		if step != nil {
			run.Steps = append(run.Steps, *step)
		}
		if err != nil {
			run.FellBehind = step != nil // a step cut short did not keep up
			return run, err
		}
		fmt.Fprintf(cfg.Log, "bench: e2e: offered %.0f/s: %d accepted (%.0f/s), %.0f/s COMPLETED, p95 ANCHORED %.2f s, "+
			"%.3f CPU ms per record, kept up %v\n", rate, len(refs), step.AcceptRate, step.CompletedRate, step.Anchor.P95,
			step.CPUPerRecordMs, step.KeptUp)
		if !step.KeptUp {
			run.FellBehind = true
			break
		}
		run.SustainedMax = rate
		if ctx.Err() != nil {
			break
		}
	}
	run.PeakRSSMB = rss.MB()
	return run, ctx.Err()
}

// step offers rate for the window, waits for the step's records to complete (at most cfg.E2EDrain), and
// measures it. seq numbers the requests across steps; start is the section's first submission.
func (run *E2ERun) step(ctx context.Context, cfg Config, sys *System, api *client.Client, rate float64, seq *int64,
	start time.Time) (*E2EStep, []string, error) {
	const workers = 64
	st := &E2EStep{OfferedRate: rate, Seconds: cfg.E2EDuration.Seconds(), WarmupSeconds: cfg.E2EWarmup.Seconds()}
	stopProfile := startProfile(cfg, fmt.Sprintf("e2e-%.0f", rate))
	defer stopProfile() // on an early return; a no-op after the one at the end of submission
	// Open loop: request i is due at t0 + i/rate; up to 64 are in flight, and a late one goes at once.
	interval := time.Duration(float64(time.Second) / rate)
	t0 := time.Now()
	run.StepStarts = append(run.StepStarts, t0.Sub(start).Seconds())
	end := t0.Add(cfg.E2EDuration)
	// The window's CPU: from the end of warm-up to the end of submission.
	var cpu cpuMeter
	timer := time.AfterFunc(cfg.E2EWarmup, cpu.start)
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
				ref, err := sealOnce(ctx, api, *seq+i)
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
	st.Profile = stopProfile()
	timer.Stop()
	st.CPU, st.MachineCPU = cpu.share(), cpu.machineShare()
	st.CPUSeconds = cpu.seconds()
	*seq += next.Load()
	st.Accepted, st.Errors = len(refs), errs.Load()
	if firstErr != nil {
		st.FirstError = firstErr.Error()
	}
	st.AcceptRate = float64(st.Accepted) / submitted.Sub(t0).Seconds()
	if len(refs) == 0 {
		return st, refs, fmt.Errorf("offered %.0f/s: no authentication accepted: %v", rate, firstErr)
	}

	// Where the records are when submission ends.
	st.Backlog = map[string]int{}
	for _, ref := range refs {
		r, err := sys.Store.Record(ctx, ref)
		if err != nil {
			return st, refs, err
		}
		st.Backlog[string(r.State)]++
	}

	// Drain: records complete nearly in acceptance order, so follow the completed prefix.
	cursor := 0
	drainEnd := time.Now().Add(cfg.E2EDrain)
	for cursor < len(refs) && time.Now().Before(drainEnd) && ctx.Err() == nil {
		r, err := sys.Store.Record(ctx, refs[cursor])
		if err != nil {
			return st, refs, err
		}
		if r.State == seald.StateCompleted || r.State == seald.StateFailed {
			cursor++
			continue
		}
		time.Sleep(200 * time.Millisecond)
	}
	st.Drained = cursor == len(refs)
	st.DrainSeconds = time.Since(submitted).Seconds()
	if err := run.collect(ctx, sys.Store, st, refs, t0, start, cfg); err != nil {
		return st, refs, err
	}
	if inWindow := st.CompletedRate * (cfg.E2EDuration - cfg.E2EWarmup).Seconds(); inWindow > 0 {
		st.CPUPerRecordMs = 1000 * st.CPUSeconds / inWindow
	}
	st.KeptUp = st.CompletedRate >= e2eKeptUp*rate && st.Anchor.P95 < e2eP95Target && st.Unanchored*20 < st.Accepted &&
		st.Errors == 0 && st.Drained
	return st, refs, nil
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

// collect reads every accepted record of a step and its batch, and derives the step's rates and latencies
// from the store's timestamps: created_at (acceptance), the batch's confirmation (ANCHORED) and the
// record's last update when COMPLETED. It adds the records to the section's timeline, from start.
func (run *E2ERun) collect(ctx context.Context, st seald.Store, step *E2EStep, refs []string, t0, start time.Time,
	cfg Config) error {
	now := time.Now()
	confirmed := map[int64]time.Time{}
	var anchor, complete []time.Duration
	secs := int(now.Sub(start).Seconds()) + 1
	for _, tl := range []*[]int{&run.Accepts, &run.Anchors, &run.Completions} {
		*tl = append(*tl, make([]int, max(secs-len(*tl), 0))...)
	}
	bucket := func(t time.Time) int { return min(max(int(t.Sub(start).Seconds()), 0), secs-1) }
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
			step.Unanchored++
			anchor = append(anchor, now.Sub(r.CreatedAt))
		} else {
			anchor = append(anchor, anchored.Sub(r.CreatedAt))
			run.Anchors[bucket(anchored)]++
		}
		if r.State == seald.StateCompleted {
			step.Completed++
			complete = append(complete, r.UpdatedAt.Sub(r.CreatedAt))
			run.Completions[bucket(r.UpdatedAt)]++
			if !r.UpdatedAt.Before(from) && !r.UpdatedAt.After(to) {
				inWindow++
			}
		}
	}
	step.Batches = len(confirmed)
	step.CompletedRate = float64(inWindow) / to.Sub(from).Seconds()
	step.Anchor = seconds(anchor)
	step.Complete = seconds(complete)
	return nil
}

// seconds returns the percentiles of ds in seconds.
func seconds(ds []time.Duration) Latency {
	slices.Sort(ds)
	l := percentiles(ds)
	return Latency{P50: l.P50 / 1000, P95: l.P95 / 1000, P99: l.P99 / 1000, Max: l.Max / 1000}
}

// seconds returns this process's CPU time since start, in seconds (0 when start did not run).
func (c *cpuMeter) seconds() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.wall.IsZero() {
		return 0
	}
	return (cpuTime() - c.used).Seconds()
}
