// Package prom exposes seald's metrics to Prometheus (client_golang): HTTP requests by route and status,
// pipeline steps, batches, gas, e-mail, IPFS bytes, anchor leadership, and, read at each scrape, the job
// queue depth and the signer balance of each network. It implements seald.Observer, so the domain reports
// to it without importing Prometheus.
package prom

import (
	"context"
	"math/big"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"seald.dev/seald"
)

var _ seald.Observer = (*Metrics)(nil)

// Options are the values Metrics reads at each scrape. Both are optional.
type Options struct {
	// Jobs counts the pipeline's jobs by kind (seald.Store.CountJobs): the queue depth of each step.
	Jobs func(ctx context.Context) (map[string]int, error)
	// Failing gives, for each job kind, when its oldest failing job began failing (seald.Jobs.OldestFailing).
	Failing func(ctx context.Context) (map[string]time.Time, error)
	// Waiting counts the records waiting in each state of the pipeline (seald.Records.CountWaiting).
	Waiting func(ctx context.Context) (map[seald.State]seald.Waiting, error)
	// Backlog counts the records waiting in the pipeline by network (seald.Records.CountWaitingByNetwork):
	// what intake compares with MaxBacklog.
	Backlog func(ctx context.Context) (map[string]int, error)
	// MaxBacklog is --max-backlog, the waiting records of one network past which intake answers 503; 0 (no
	// bound) leaves seald_backlog_limit out.
	MaxBacklog int
	// Balances reads the signer balance (wei) of each network.
	Balances map[string]func(ctx context.Context) (*big.Int, error)
	// ScrapeTimeout bounds the reads above at each scrape (default 5 s), so a slow chain node cannot hold a
	// scrape forever; a read that fails or times out leaves its series out of that scrape.
	ScrapeTimeout time.Duration
}

// Metrics is seald's metrics registry. Create it with New.
type Metrics struct {
	reg *prometheus.Registry

	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	steps     *prometheus.HistogramVec
	batchSize *prometheus.HistogramVec
	gas       *prometheus.CounterVec
	failed    *prometheus.CounterVec
	mails     *prometheus.CounterVec
	ipfsBytes prometheus.Counter
	leader    *prometheus.GaugeVec
}

// stepBuckets reach a minute: a step waits on IPFS, a chain node or an SMTP server.
var stepBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// New returns a registry with the Go runtime and process collectors and seald's metrics.
func New(opts Options) *Metrics {
	if opts.ScrapeTimeout <= 0 {
		opts.ScrapeTimeout = 5 * time.Second
	}
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "http_requests_total", Help: "HTTP requests answered, by route pattern and status code.",
	}, []string{"route", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "http_request_duration_seconds", Help: "Time to answer an HTTP request, by route pattern.",
		Buckets: prometheus.DefBuckets,
	}, []string{"route"})
	m.steps = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "seald_step_duration_seconds", Help: "Duration of pipeline step runs, by step and result (ok or error).",
		Buckets: stepBuckets,
	}, []string{"step", "result"})
	m.batchSize = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "seald_batch_size", Help: "Records per confirmed anchoring batch, by network.",
		Buckets: prometheus.ExponentialBuckets(1, 2, 11),
	}, []string{"network"})
	m.gas = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "seald_gas_used_total", Help: "Gas used by confirmed anchoring transactions, by network.",
	}, []string{"network"})
	m.failed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "seald_batches_failed_total", Help: "Anchoring batches whose transaction reverted on chain, by network; their records were queued again.",
	}, []string{"network"})
	m.mails = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "seald_mails_total", Help: "Notification e-mails, by result (sent or failed).",
	}, []string{"result"})
	m.ipfsBytes = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "seald_ipfs_bytes_stored_total", Help: "Bytes of encrypted envelopes put into IPFS.",
	})
	m.leader = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "seald_anchor_leader", Help: "1 while this process is the anchor leader of the network, else 0.",
	}, []string{"network"})
	for _, r := range []string{"sent", "failed"} {
		m.mails.WithLabelValues(r) // present at 0, so that rate() and alerts see the series from the start
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.latency, m.steps, m.batchSize, m.gas, m.failed, m.mails, m.ipfsBytes, m.leader,
		&scraped{opts: opts},
	)
	for network := range opts.Balances {
		m.leader.WithLabelValues(network).Set(0)
		m.gas.WithLabelValues(network)
		m.failed.WithLabelValues(network)
	}
	return m
}

// Registry is the underlying registry, for tests and for adding collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in the Prometheus exposition formats. A collector that fails leaves its series
// out of the answer rather than failing the whole scrape.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, Registry: m.reg})
}

// Request records one HTTP request: httpapi.Server.Metrics. An empty route (no pattern matched) is
// "unmatched", so that request paths never become labels.
func (m *Metrics) Request(route string, status int, d time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	if status == 0 {
		status = http.StatusOK // the handler wrote nothing: net/http answers 200
	}
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// StepDone implements seald.Observer.
func (m *Metrics) StepDone(step string, d time.Duration, err error) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.steps.WithLabelValues(step, result).Observe(d.Seconds())
}

// BatchAnchored implements seald.Observer.
func (m *Metrics) BatchAnchored(network string, size int, gasUsed uint64) {
	m.batchSize.WithLabelValues(network).Observe(float64(size))
	m.gas.WithLabelValues(network).Add(float64(gasUsed))
}

// BatchFailed implements seald.Observer.
func (m *Metrics) BatchFailed(network string, size int) {
	m.failed.WithLabelValues(network).Inc()
}

// MailSent implements seald.Observer.
func (m *Metrics) MailSent(ok bool) {
	if ok {
		m.mails.WithLabelValues("sent").Inc()
	} else {
		m.mails.WithLabelValues("failed").Inc()
	}
}

// BlobStored implements seald.Observer.
func (m *Metrics) BlobStored(bytes int) { m.ipfsBytes.Add(float64(bytes)) }

// Leading implements seald.Observer.
func (m *Metrics) Leading(network string, leading bool) {
	v := 0.0
	if leading {
		v = 1
	}
	m.leader.WithLabelValues(network).Set(v)
}

// scraped collects the values read at scrape time: queue depth and signer balances.
type scraped struct{ opts Options }

var (
	queuedDesc = prometheus.NewDesc("seald_jobs_queued",
		"Pipeline jobs waiting or running, by kind (store, notify, finish, revoke:NETWORK); shared by every instance on one database.",
		[]string{"kind"}, nil)
	waitingDesc = prometheus.NewDesc("seald_records_waiting",
		"Records waiting in each state of the pipeline that is not final (IPFS_STORED: waiting for the chain); shared by every instance on one database.",
		[]string{"state"}, nil)
	oldestDesc = prometheus.NewDesc("seald_records_oldest_waiting_seconds",
		"Age, since it was sealed, of the oldest record waiting in each state of the pipeline (0 when none waits).",
		[]string{"state"}, nil)
	overdueDesc = prometheus.NewDesc("seald_jobs_oldest_overdue_seconds",
		"Seconds since the oldest failing job of each kind first failed (0 when none fails); revocation (revoke:NETWORK) and erasure jobs retry until they succeed, so this grows until the cause is fixed.",
		[]string{"kind"}, nil)
	backlogDesc = prometheus.NewDesc("seald_backlog_records",
		"Records of each network waiting in the pipeline, the count intake compares with seald_backlog_limit; shared by every instance on one database.",
		[]string{"network"}, nil)
	backlogLimitDesc = prometheus.NewDesc("seald_backlog_limit",
		"Waiting records of one network past which intake refuses new records with 503 (--max-backlog); absent when there is no bound.",
		nil, nil)
	balanceDesc = prometheus.NewDesc("seald_signer_balance_wei",
		"Balance of the anchoring key on the network, in wei.", []string{"network"}, nil)
)

// Describe implements prometheus.Collector.
func (c *scraped) Describe(ch chan<- *prometheus.Desc) {
	ch <- queuedDesc
	ch <- waitingDesc
	ch <- oldestDesc
	ch <- overdueDesc
	ch <- backlogDesc
	ch <- backlogLimitDesc
	ch <- balanceDesc
}

// Collect implements prometheus.Collector.
func (c *scraped) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.ScrapeTimeout)
	defer cancel()
	if c.opts.Jobs != nil {
		if counts, err := c.opts.Jobs(ctx); err == nil {
			if counts == nil {
				counts = map[string]int{}
			}
			for _, kind := range []string{seald.JobStore, seald.JobNotify, seald.JobFinish} {
				if _, ok := counts[kind]; !ok {
					counts[kind] = 0 // absent kinds are empty queues, not missing series
				}
			}
			for network := range c.opts.Balances {
				counts[seald.RevokeJob(network)] += 0 // so are a network's revocations
			}
			for kind, n := range counts {
				ch <- prometheus.MustNewConstMetric(queuedDesc, prometheus.GaugeValue, float64(n), kind)
			}
		}
	}
	if c.opts.Failing != nil {
		if failing, err := c.opts.Failing(ctx); err == nil {
			now := time.Now()
			if failing == nil {
				failing = map[string]time.Time{}
			}
			for _, kind := range []string{seald.JobErase} {
				if _, ok := failing[kind]; !ok {
					failing[kind] = time.Time{} // present at 0, so that an alert sees the series from the start
				}
			}
			for network := range c.opts.Balances {
				if _, ok := failing[seald.RevokeJob(network)]; !ok {
					failing[seald.RevokeJob(network)] = time.Time{}
				}
			}
			for kind, since := range failing {
				age := 0.0
				if !since.IsZero() {
					age = max(now.Sub(since).Seconds(), 0)
				}
				ch <- prometheus.MustNewConstMetric(overdueDesc, prometheus.GaugeValue, age, kind)
			}
		}
	}
	if c.opts.Waiting != nil {
		if waiting, err := c.opts.Waiting(ctx); err == nil {
			now := time.Now()
			for _, st := range seald.WaitingStates {
				w := waiting[st] // a state with none is 0, not a missing series
				age := 0.0
				if w.Count > 0 {
					age = max(now.Sub(w.Oldest).Seconds(), 0)
				}
				ch <- prometheus.MustNewConstMetric(waitingDesc, prometheus.GaugeValue, float64(w.Count), string(st))
				ch <- prometheus.MustNewConstMetric(oldestDesc, prometheus.GaugeValue, age, string(st))
			}
		}
	}
	if c.opts.Backlog != nil {
		if counts, err := c.opts.Backlog(ctx); err == nil {
			if counts == nil {
				counts = map[string]int{}
			}
			for network := range c.opts.Balances {
				counts[network] += 0 // a network with none waiting is 0, not a missing series
			}
			for network, n := range counts {
				ch <- prometheus.MustNewConstMetric(backlogDesc, prometheus.GaugeValue, float64(n), network)
			}
		}
	}
	if c.opts.MaxBacklog > 0 {
		ch <- prometheus.MustNewConstMetric(backlogLimitDesc, prometheus.GaugeValue, float64(c.opts.MaxBacklog))
	}
	for network, balance := range c.opts.Balances {
		if wei, err := balance(ctx); err == nil {
			f, _ := new(big.Float).SetInt(wei).Float64()
			ch <- prometheus.MustNewConstMetric(balanceDesc, prometheus.GaugeValue, f, network)
		}
	}
}
