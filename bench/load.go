package bench

import (
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Request makes one request of a load and reports whether it got the expected answer. worker is the
// closed-loop client making it (0..conns-1), seq the request's number across the whole load. It is the seam
// between the load generator and what it calls: plain net/http today (see verifyRequest, sealRequest), the
// typed client package later, without touching the loop.
type Request func(ctx context.Context, worker int, seq int64) error

// Load is what one closed-loop run measured.
type Load struct {
	Conns    int     `json:"connections"`
	Requests int64   `json:"requests"` // answered as expected, after warm-up
	Errors   int64   `json:"errors"`   // failed or unexpected answers, after warm-up
	Seconds  float64 `json:"seconds"`  // measured window (warm-up excluded)
	Rate     float64 `json:"requests_per_second"`
	Latency  Latency `json:"latency_ms"`
	// FirstError is the first failure seen, to say why Errors is not zero.
	FirstError string `json:"first_error,omitempty"`
	// CPU is the share of the machine's cores this process used during the window (1 = every core busy).
	CPU float64 `json:"cpu_share"`
	// MachineCPU is the share of the machine's cores busy during the window, every process included.
	MachineCPU float64 `json:"machine_cpu_share"`
	// PeakRSSMB is the process's peak resident set during this load (see peakRSS).
	PeakRSSMB float64 `json:"peak_rss_mb"`
	// Profile is the load's CPU profile file in the report's directory and where its CPU went (profile.go).
	Profile string `json:"profile,omitempty"`

	samples []time.Duration // sorted latencies, for the distribution plot
}

// Latency holds percentiles in milliseconds.
type Latency struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// closedLoop runs conns clients that each send the next request as soon as the previous one is answered,
// for warmup plus d, and measures the requests answered after warm-up. Latencies are kept as samples (one
// per request, a few MB at most for our rates) and sorted: exact percentiles, no histogram library needed.
func closedLoop(ctx context.Context, conns int, warmup, d time.Duration, req Request) Load {
	var seq atomic.Int64
	start := time.Now()
	measureFrom, end := start.Add(warmup), start.Add(warmup+d)
	ctx, cancel := context.WithDeadline(ctx, end.Add(5*time.Second))
	defer cancel()
	type worker struct {
		lat   []time.Duration
		errs  int64
		first error
	}
	ws := make([]worker, conns)
	var wg sync.WaitGroup
	var cpu cpuMeter
	timer := time.AfterFunc(warmup, cpu.start)
	defer timer.Stop()
	for i := range ws {
		w := &ws[i]
		w.lat = make([]time.Duration, 0, 1024)
		wg.Go(func() {
			for {
				t0 := time.Now()
				if !t0.Before(end) || ctx.Err() != nil {
					return
				}
				err := req(ctx, i, seq.Add(1))
				if t0.Before(measureFrom) {
					continue
				}
				if err != nil {
					w.errs++
					if w.first == nil {
						w.first = err
					}
					continue
				}
				w.lat = append(w.lat, time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(measureFrom)
	l := Load{Conns: conns, Seconds: elapsed.Seconds(), CPU: cpu.share(), MachineCPU: cpu.machineShare()}
	for i := range ws {
		l.samples = append(l.samples, ws[i].lat...)
		l.Errors += ws[i].errs
		if l.FirstError == "" && ws[i].first != nil {
			l.FirstError = ws[i].first.Error()
		}
	}
	slices.Sort(l.samples)
	l.Requests = int64(len(l.samples))
	l.Rate = float64(l.Requests) / l.Seconds
	l.Latency = percentiles(l.samples)
	return l
}

// percentiles reads p50, p95, p99 and the maximum off sorted samples (nearest rank).
func percentiles(sorted []time.Duration) Latency {
	if len(sorted) == 0 {
		return Latency{}
	}
	at := func(p float64) float64 {
		i := int(p*float64(len(sorted))+0.999999) - 1
		i = min(max(i, 0), len(sorted)-1)
		return ms(sorted[i])
	}
	return Latency{P50: at(0.50), P95: at(0.95), P99: at(0.99), Max: ms(sorted[len(sorted)-1])}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// newClient returns an HTTP client for conns concurrent clients on loopback: one kept-alive connection per
// client, no compression (the server does not compress either), so each request is one round trip.
func newClient(conns int) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        conns + 16,
			MaxIdleConnsPerHost: conns + 16,
			MaxConnsPerHost:     conns + 16,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
		},
		Timeout: 60 * time.Second,
	}
}

// drain reads and closes a response body so its connection is reused.
func drain(r *http.Response) {
	_, _ = io.Copy(io.Discard, r.Body)
	r.Body.Close()
}

// serveLoopback serves h (a baseline's handler) on 127.0.0.1:0 with the timeouts seald's server uses and returns its base URL
// and a stop function.
func serveLoopback(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	go func() { _ = srv.Serve(ln) }()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}
	return "http://" + ln.Addr().String(), stop, nil
}
