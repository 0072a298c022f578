// Command sealbench measures seald as cmd/seald wires it (package bench) against baselines measured in the
// same run, and writes report.md, report.json and PNG plots. It is a command of its own so that the
// production binary carries none of the bench's dependencies (plotting, other canonicalizers).
//
//	sealbench [--quick] [--out DIR] [--records N] [--postgres DSN] [--only verify,intake,e2e,gas,jcs] [--duration D]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/bench"
	"seald.dev/seald/httpapi"
	"seald.dev/seald/internal/wiring"
	"seald.dev/seald/ipfs"
	"seald.dev/seald/pipeline"
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
	e2eDuration := fs.Duration("e2e-duration", 0, "end-to-end submission window (default 60s; 15s with --quick)")
	e2eRate := fs.Float64("e2e-rate", 0, "end-to-end offered authentications per second (default 1000)")
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
	logger := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	stopProfiles, err := startProfiles(*cpuProfile, *memProfile)
	if err != nil {
		return err
	}
	defer stopProfiles()
	start := time.Now()
	rep, err := bench.Run(ctx, cfg, benchOpener(logger))
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

// benchOpener opens a seald for the bench exactly as serve wires one, from serve's defaults (the embedded
// IPFS, chain and outbox), in the bench's data dir and database, with the chain's JSON-RPC listener and the
// per-key rate limit off (the load comes from one key), and the pipeline running only when asked.
func benchOpener(logger *slog.Logger) bench.Opener {
	return func(ctx context.Context, o bench.Options) (_ *bench.System, err error) {
		var cfg wiring.Config
		if err := wiring.Parse(wiring.FlagSet("serve", &cfg, true), nil, func(string) string { return "" }); err != nil {
			return nil, err
		}
		cfg.DataDir, cfg.Database, cfg.ChainRPCAddr, cfg.Rate = o.Dir, o.Database, "", 0
		secrets, _, err := wiring.LoadSecrets(cfg.SecretsPath(), "")
		if err != nil {
			return nil, err
		}
		store, err := wiring.OpenStore(ctx, &cfg)
		if err != nil {
			return nil, fmt.Errorf("open store: %w", err)
		}
		var closers wiring.CloseList
		closers.Add("store", store.Close)
		defer func() {
			if err != nil {
				closers.CloseAll(logger)
			}
		}()
		bulk, ok := store.(interface {
			BulkInsertRecords(ctx context.Context, records []*seald.Record) error
		})
		if !ok {
			return nil, errors.New("the store has no bulk path")
		}
		cfg.PublicURL = "http://127.0.0.1"
		cfg.IPFSGatewayURL = cfg.PublicURL
		parts, err := wiring.OpenParts(ctx, &cfg, logger, &closers)
		if err != nil {
			return nil, err
		}
		svc := &seald.Service{
			Store: store, Secrets: secrets, Blobs: parts.Blobs, Canonicalize: wiring.CanonicalizeData,
			PublicURL: cfg.PublicURL, Chains: parts.Chains, Logger: logger, CacheTTL: cfg.AuthCacheTTL,
		}
		pipe := &pipeline.Pipeline{
			Store: store, Secrets: secrets, Blobs: parts.Blobs, Anchorers: parts.Anchorers, Mailer: parts.Mailer,
			Link: svc.VerificationLink, Workers: cfg.Workers, Logger: logger,
			Anchor: pipeline.AnchorPolicy{MaxRecords: cfg.BatchSize, MaxWait: cfg.BatchWait},
		}
		t, err := svc.CreateTenant(ctx, seald.TenantRequest{Business: "Bench business", Project: "Bench project"})
		if err != nil {
			return nil, err
		}
		api := &httpapi.Server{
			Service: svc, Logger: logger, BodyLimit: cfg.BodyLimit, RatePerSecond: cfg.Rate, RateBurst: cfg.RateBurst,
			GatewayURL: cfg.IPFSGatewayURL, Gateway: parts.Gateway, ValidCID: parts.ValidCID, CanonicalCID: ipfs.Canonical, Ready: parts.Ready(store),
		}
		stopPipe := func() {}
		if o.Pipeline {
			svc.Wake = pipe.Wake
			pipeCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
			var wg sync.WaitGroup
			wg.Go(func() { _ = pipe.Run(pipeCtx) })
			stopPipe = func() { cancel(); wg.Wait() }
		}
		return &bench.System{
			Handler: api.Handler(), Store: store, Bulk: bulk.BulkInsertRecords,
			SubscriptionKey: t.SubscriptionKey, APIKey: t.APIKey,
			BusinessID: t.Business.BusinessID, ProjectID: t.Project.ProjectID, Privacy: t.Project.Privacy,
			Close: func() error { stopPipe(); closers.CloseAll(logger); return nil },
		}, nil
	}
}
