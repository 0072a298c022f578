// Command sealbench measures seald as serve runs it, built by the same internal/wiring.Build (package
// bench), against baselines measured in the same run, and writes report.md, report.json and PNG plots. It is a command of its own so that the
// production binary carries none of the bench's dependencies (plotting, other canonicalizers).
//
//	sealbench [--quick] [--out DIR] [--records N] [--postgres DSN] [--only verify,intake,e2e,gas,jcs] [--duration D]
//	          [--e2e-rate R] [--e2e-steps N] [--e2e-duration D] [--writes-records N] [--writes-history N]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/bench"
	"seald.dev/seald/internal/wiring"
)

// localPostgres is the local test server, used by bench when neither --postgres nor SEALD_TEST_POSTGRES_DSN
// names one.
const localPostgres = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "sealbench:", err)
		}
		os.Exit(1)
	}
}

// run is the whole program, callable from tests: it measures and writes the report into --out.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sealbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "small and short: 20,000 records, 3 s per load, 15 s end to end (under 5 minutes)")
	out := fs.String("out", "bench-report", "directory for report.md, report.json and the plots")
	records := fs.Int("records", 0, "records preloaded for verification (default 1,000,000; 20,000 with --quick)")
	pg := fs.String("postgres", "", "DSN of a PostgreSQL server to create a fresh database on ('none' to skip; default "+
		"SEALD_TEST_POSTGRES_DSN or the local test server)")
	only := fs.String("only", "", "comma-separated sections: "+strings.Join(bench.AllSections, ","))
	duration := fs.Duration("duration", 0, "measured window of each closed-loop load (default 10s; 3s with --quick)")
	warmup := fs.Duration("warmup", -1, "unmeasured warm-up before each load (default 2s; 1s with --quick)")
	conns := fs.String("conns", "", "verification connection counts (default 1,16,64,256)")
	e2eDuration := fs.Duration("e2e-duration", 0, "end-to-end submission window of each offered rate (default 30s; 8s with --quick)")
	e2eRate := fs.Float64("e2e-rate", 0, "end-to-end first offered rate, authentications per second, stepped by half "+
		"of it (default 1000)")
	e2eSteps := fs.Int("e2e-steps", 0, "end-to-end offered rates tried at most, until one falls behind (default 8; 4 with --quick)")
	writesRecords := fs.Int("writes-records", 0, "records sealed on each store by the writes section, at --e2e-rate (default 3000)")
	writesHistory := fs.Int("writes-history", -1, "completed records a store holds for the writes section's second run "+
		"on it (default 200,000; 50,000 with --quick; 0: no second run)")
	gasSizes := fs.String("gas-sizes", "", "anchoring batch sizes of the gas section (default 1,64,256,1024)")
	jcsTime := fs.Duration("jcs-time", 0, "time per canonicalizer, input and round (default 1s; 200ms with --quick)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run (server, store and load generator) to this file")
	memProfile := fs.String("memprofile", "", "write an allocation profile of the whole run to this file at the end")
	tessera := fs.String("tessera", getenv("SEALD_BENCH_TESSERA"), "tessera-peer binary for the peer row beside intake "+
		"(default $SEALD_BENCH_TESSERA; `make bench` builds it with scripts/peers.sh tessera)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := bench.Full()
	if *quick {
		cfg = bench.Quick()
	}
	cfg.OutDir, cfg.Log, cfg.Tessera = *out, stderr, *tessera
	cfg.Command = strings.TrimSpace("sealbench " + strings.Join(args, " "))
	if *records > 0 {
		cfg.Records = *records
	}
	if *duration > 0 {
		cfg.Duration = *duration
	}
	if *warmup >= 0 {
		cfg.Warmup = *warmup
	}
	if *e2eDuration > 0 {
		cfg.E2EDuration = *e2eDuration
		cfg.E2EWarmup = min(cfg.E2EWarmup, *e2eDuration/3)
	}
	if *e2eRate > 0 {
		cfg.E2ERate = *e2eRate
	}
	if *e2eSteps > 0 {
		cfg.E2ESteps = *e2eSteps
	}
	if *writesRecords > 0 {
		cfg.WritesRecords = *writesRecords
	}
	if *writesHistory >= 0 {
		cfg.WritesHistory = *writesHistory
	}
	if *jcsTime > 0 {
		cfg.JCSTime = *jcsTime
	}
	var err error
	if *conns != "" {
		if cfg.Conns, err = positiveList("--conns", *conns); err != nil {
			return err
		}
	}
	if *gasSizes != "" {
		if cfg.GasSizes, err = positiveList("--gas-sizes", *gasSizes); err != nil {
			return err
		}
	}
	if *only != "" {
		cfg.Sections = nil
		for _, s := range strings.Split(*only, ",") {
			s = strings.TrimSpace(s)
			if !slices.Contains(bench.AllSections, s) {
				return fmt.Errorf("--only: unknown section %q (have %s)", s, strings.Join(bench.AllSections, ","))
			}
			cfg.Sections = append(cfg.Sections, s)
		}
	}
	switch {
	case *pg == "none":
	case *pg != "":
		cfg.Postgres = *pg
	case getenv("SEALD_TEST_POSTGRES_DSN") != "":
		cfg.Postgres = getenv("SEALD_TEST_POSTGRES_DSN")
	default:
		cfg.Postgres = localPostgres
	}
	stopProfiles, err := startProfiles(*cpuProfile, *memProfile)
	if err != nil {
		return err
	}
	defer stopProfiles()
	start := time.Now()
	rep, err := bench.Run(ctx, cfg, benchOpener(stderr))
	if rep != nil {
		fmt.Fprintf(stdout, "%s\nsealbench: %s in %s (report.md, report.json and plots)\n", rep.Table(), cfg.OutDir,
			time.Since(start).Round(time.Second))
	}
	return err
}

// positiveList parses a comma-separated list of positive numbers.
func positiveList(name, s string) ([]int, error) {
	var out []int
	for _, c := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s: %q is not a positive number", name, c)
		}
		out = append(out, n)
	}
	return out, nil
}

// benchOpener opens a seald for the bench with wiring.Build, the builder serve runs, with serve's Config
// defaults (embedded IPFS, chain and outbox; backlog limit, webhooks, erasure log, page, metrics, leases) and
// the options serve passes. Only what measuring needs is set, each an explicit Config field: the bench's
// data dir and database, the API on 127.0.0.1:0, no chain JSON-RPC listener, no per-key rate limit (the
// load comes from one key), errors-only logging, and the pipeline off unless the section asks for it. The
// load generator calls the default tenant that the first start creates, as a first user of serve would.
func benchOpener(stderr io.Writer) bench.Opener {
	return func(ctx context.Context, o bench.Options) (_ *bench.System, err error) {
		var cfg wiring.Config
		if err := wiring.Parse(wiring.FlagSet("serve", &cfg, true), nil, func(string) string { return "" }); err != nil {
			return nil, err
		}
		cfg.DataDir, cfg.Database, cfg.Addr, cfg.ChainRPCAddr, cfg.Rate = o.Dir, o.Database, "127.0.0.1:0", "", 0
		cfg.LogLevel, cfg.PipelineOff = "error", !o.Pipeline
		app, err := wiring.Build(ctx, cfg, wiring.Options{Stderr: stderr})
		if err != nil {
			return nil, err
		}
		bulk, ok := app.Store.(interface {
			BulkInsertRecords(ctx context.Context, records []*seald.Record) error
		})
		t := app.DefaultTenant
		if !ok || t == nil {
			app.Close()
			return nil, errors.New("the store has no bulk path, or the fresh data dir had a tenant already")
		}
		runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
		ran := make(chan error, 1)
		go func() { ran <- app.Run(runCtx) }()
		return &bench.System{
			URL: app.URL, Store: app.Store, Bulk: bulk.BulkInsertRecords,
			SubscriptionKey: t.SubscriptionKey, APIKey: t.APIKey,
			BusinessID: t.Business.BusinessID, ProjectID: t.Project.ProjectID, Privacy: t.Project.Privacy,
			Close: func() error { stop(); return <-ran },
		}, nil
	}
}
