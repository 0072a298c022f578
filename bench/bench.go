// Package bench is the engine of `sealbench` (issue #8): it measures seald on one machine in one run and
// judges every figure as a ratio to a baseline measured in the same run (a bare net/http handler, the
// offered load, a plain ERC-721 mint, the fastest other canonicalizer), because absolute times drift on
// shared machines. It writes report.md, report.json and PNG plots.
//
// The system under test is opened by the caller (cmd/sealbench builds it with internal/wiring.Build, the
// builder serve runs, with serve's defaults), so this package never duplicates the wiring: it drives that
// system's own HTTP server over loopback TCP, in this process.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"seald.dev/seald/client"

	"seald.dev/seald"
)

// Sections, in the order they run.
const (
	SectionJCS    = "jcs"
	SectionGas    = "gas"
	SectionVerify = "verify"
	SectionIntake = "intake"
	SectionE2E    = "e2e"
)

// AllSections lists every section.
var AllSections = []string{SectionJCS, SectionGas, SectionVerify, SectionIntake, SectionWrites, SectionE2E}

// Config says what to measure and for how long.
type Config struct {
	OutDir  string
	Records int // preloaded for the verify section
	// Duration is each closed-loop measurement's window; Warmup runs before it, unmeasured.
	Duration time.Duration
	Warmup   time.Duration
	// Conns are the verify section's connection counts; IntakeConns the intake section's.
	Conns       []int
	IntakeConns int
	// E2ERate is the first offered rate of the end-to-end run (records/s), stepped by half of it up to
	// E2ESteps steps until one falls behind; E2EDuration is each step's submission window, E2EWarmup the
	// start of it left out of the completion rate and the CPU per record, E2EDrain the longest wait for a
	// step's backlog after its submission ends.
	E2ERate     float64
	E2ESteps    int
	E2EDuration time.Duration
	E2EWarmup   time.Duration
	E2EDrain    time.Duration
	// JCSTime is how long each canonicalizer runs per input and round.
	JCSTime time.Duration
	// WritesRecords are sealed on each store by the writes section, at E2ERate (default 3,000).
	WritesRecords int
	// WritesHistory, when not 0, has the writes section measure each store a second time, on a store that
	// already holds that many completed records with random references, hashes and CIDs: a service with a
	// history, where each new key of a random-keyed index lands on a leaf page of its own.
	WritesHistory int
	// LoneRecords are sealed one at a time before the end-to-end load, for the single-record latency.
	LoneRecords int
	// Tessera is the tessera-peer binary (tools/tessera), run beside the intake section with the same
	// entries and writers; empty: the peer row says it was not measured and why.
	Tessera string
	// GasSizes are the batch sizes of the gas section.
	GasSizes []int
	// Postgres is the DSN of a server on which a fresh database is created (and dropped); empty: the
	// PostgreSQL figures are skipped with a note.
	Postgres string
	Sections []string
	// Command is the command line that made the report, printed in it.
	Command string
	Log     io.Writer
}

// Quick returns the configuration of `sealbench --quick`: small, short, fewer points and end-to-end steps
// (under 5 minutes).
func Quick() Config {
	return Config{
		Records: 20000, Duration: 3 * time.Second, Warmup: time.Second, Conns: []int{1, 64, 256},
		IntakeConns: 64, E2ERate: 1000, E2ESteps: 4, E2EDuration: 8 * time.Second, E2EWarmup: 2 * time.Second,
		E2EDrain: 15 * time.Second, LoneRecords: 10, JCSTime: 200 * time.Millisecond, GasSizes: []int{1, 64, 256, 1024},
		WritesHistory: 50000, Sections: AllSections,
	}
}

// Full returns the configuration of the full run (under 30 minutes with 1,000,000 records).
func Full() Config {
	return Config{
		Records: 1000000, Duration: 10 * time.Second, Warmup: 2 * time.Second, Conns: []int{1, 16, 64, 256},
		IntakeConns: 64, E2ERate: 1000, E2ESteps: 8, E2EDuration: 30 * time.Second, E2EWarmup: 5 * time.Second,
		E2EDrain: 60 * time.Second, LoneRecords: 30, JCSTime: time.Second, GasSizes: []int{1, 64, 256, 1024},
		WritesHistory: 200000, Sections: AllSections,
	}
}

// Options say which seald to open.
type Options struct {
	// Dir is a fresh, empty data dir (keys, embedded IPFS, chain, outbox; the SQLite file when Database is
	// empty).
	Dir string
	// Database is a postgres:// DSN, or empty for SQLite in Dir.
	Database string
	// Pipeline runs the pipeline's workers and anchor leader; off, records stay PENDING once accepted.
	Pipeline bool
}

// System is one seald under test, opened with the real parts.
type System struct {
	// URL is the base URL of the system's own API server, listening on loopback (serve's http.Server on
	// 127.0.0.1:0), with the per-key rate limit off.
	URL   string
	Store seald.Store
	// Bulk inserts records through the store's bulk path.
	Bulk func(ctx context.Context, records []*seald.Record) error
	// The default tenant's keys and ids, which the load generator calls with.
	SubscriptionKey, APIKey string
	BusinessID, ProjectID   string
	Privacy                 seald.Privacy
	Close                   func() error
}

// client is the typed client of package client for base with the system's keys, over hc.
func (s *System) client(base string, hc *http.Client) *client.Client {
	return client.New(base, client.WithKeys(s.SubscriptionKey, s.APIKey), client.WithHTTPClient(hc))
}

// Opener opens a System.
type Opener func(ctx context.Context, o Options) (*System, error)

// Run measures the configured sections and writes the report into cfg.OutDir. A section that fails is
// reported as failed and the others still run; the error names the failed sections.
func Run(ctx context.Context, cfg Config, open Opener) (*Report, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	rep := &Report{Command: cfg.Command, Machine: machine(ctx), Config: summary(cfg)}
	rep.Notes = append(rep.Notes,
		"Loads run in this one process: real loopback TCP (net/http clients, one kept-alive connection per client) "+
			"against seald as serve builds and serves it (internal/wiring.Build: the same http.Server, on 127.0.0.1:0), "+
			"with the per-key rate limit off. Server and load generator share the same cores, and so do the baselines.",
		"Peak RSS is this whole process (server, store, embedded parts and load generator): VmHWM, restarted "+
			"before each load through /proc/self/clear_refs after returning freed heap to the OS.",
		"Requests go through plain net/http (bench.Request); the typed client package can replace it there.",
		"On PostgreSQL the preload ends with VACUUM ANALYZE of the records' tables (counted in the preload time), "+
			"as after an import, so that autovacuum does not start on the fresh rows during a load.")
	var failed []string
	for _, s := range AllSections {
		if !slices.Contains(cfg.Sections, s) {
			continue
		}
		fmt.Fprintf(cfg.Log, "bench: %s\n", s)
		t0 := time.Now()
		var err error
		switch s {
		case SectionJCS:
			rep.JCS, err = runJCS(cfg)
		case SectionGas:
			rep.Gas, err = runGas(ctx, cfg)
		case SectionVerify:
			rep.Verify, err = runVerify(ctx, cfg, open, rep)
		case SectionIntake:
			rep.Intake, err = runIntake(ctx, cfg, open, rep)
		case SectionWrites:
			rep.Writes, rep.SD, err = runWrites(ctx, cfg, open, rep)
		case SectionE2E:
			rep.E2E, err = runE2E(ctx, cfg, open)
		}
		fmt.Fprintf(cfg.Log, "bench: %s done in %s\n", s, time.Since(t0).Round(time.Second))
		if err != nil {
			fmt.Fprintf(cfg.Log, "bench: %s failed: %v\n", s, err)
			rep.Failed = append(rep.Failed, SectionError{Section: s, Error: err.Error()})
			failed = append(failed, s)
		}
		if ctx.Err() != nil {
			break
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	rep.judge(cfg)
	if err := rep.write(cfg.OutDir); err != nil {
		return rep, err
	}
	if len(failed) > 0 {
		return rep, fmt.Errorf("bench: sections failed: %s (see %s)", strings.Join(failed, ", "), cfg.OutDir)
	}
	return rep, ctx.Err()
}

// stores lists the stores to measure: SQLite always, PostgreSQL when a server answers at cfg.Postgres.
type storeRun struct {
	name     string // "sqlite" or "postgres"
	database string
	drop     func()
}

func stores(ctx context.Context, cfg Config, rep *Report) []storeRun {
	out := []storeRun{{name: "sqlite", drop: func() {}}}
	if cfg.Postgres == "" {
		rep.skip("PostgreSQL figures skipped: no DSN given (--postgres or SEALD_TEST_POSTGRES_DSN).")
		return out
	}
	dsn, drop, err := freshDatabase(ctx, cfg.Postgres)
	if err != nil {
		rep.skip(fmt.Sprintf("PostgreSQL figures skipped: %s does not answer: %v", redact(cfg.Postgres), err))
		return out
	}
	return append(out, storeRun{name: "postgres", database: dsn, drop: drop})
}

// openFresh opens a System in a new temporary data dir and returns it with a function that closes it and
// removes the dir.
func openFresh(ctx context.Context, open Opener, database string, pipeline bool) (*System, func(), error) {
	dir, err := os.MkdirTemp("", "seald-bench-")
	if err != nil {
		return nil, nil, err
	}
	sys, err := open(ctx, Options{Dir: dir, Database: database, Pipeline: pipeline})
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return sys, func() {
		if err := sys.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "bench: close: %v\n", err)
		}
		os.RemoveAll(dir)
	}, nil
}

// errStatus is an answer other than the one expected.
func errStatus(got, want int) error {
	return fmt.Errorf("HTTP status %d, want %d", got, want)
}

var errNoRecords = errors.New("bench: no records to verify")
