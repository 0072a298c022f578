package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/httpapi"
	"seald.dev/seald/internal/wiring"
	"seald.dev/seald/ipfs"
	"seald.dev/seald/pipeline"
	"seald.dev/seald/web"
	"seald.dev/seald/webhook"
)

// serve runs the API and the pipeline until ctx ends, then shuts down in order: stop accepting, drain the
// requests in flight, let running steps finish, close the parts and the store.
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg wiring.Config
	fs := wiring.FlagSet("serve", &cfg, true)
	fs.SetOutput(stderr)
	if err := wiring.Parse(fs, args, getenv); err != nil {
		return err
	}
	logger, err := newLogger(stderr, cfg.LogLevel)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return err
	}
	secrets, created, err := wiring.LoadSecrets(cfg.SecretsPath(), wiring.Value(getenv(wiring.PassphraseEnv)))
	if err != nil {
		return err
	}
	secrets.SetPasswordBudget(cfg.PasswordMemory << 20)
	store, err := wiring.OpenStore(ctx, &cfg)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	var closers wiring.CloseList
	defer closers.CloseAll(logger)
	closers.Add("store", store.Close)
	if created {
		if err := wiring.RefuseNewSecrets(ctx, store, cfg.SecretsPath()); err != nil {
			return err
		}
	}
	if (cfg.IPFS == "" || cfg.IPFS == "embedded") && strings.HasPrefix(cfg.DatabaseSpec(), "postgres") {
		// The embedded IPFS store lives in this instance's data dir: a second instance on the same database
		// could not serve the envelopes the first stored. One instance holds the database's embedded-IPFS
		// lock for as long as it runs; another is refused here rather than answering 500s later.
		l, err := store.TryLock(ctx, "embedded-ipfs")
		if err != nil {
			return fmt.Errorf("open store: %w", err)
		}
		if l == nil {
			return errors.New("--ipfs embedded: another instance on this database already keeps the envelopes in its own " +
				"embedded IPFS store, which this one could not read; instances sharing a database need a shared IPFS node: " +
				"give each --ipfs http://KUBO:5001")
		}
		closers.Add("embedded-ipfs lock", func() error { l.Release(); return nil })
	}

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	scheme := "http"
	if cfg.TLSCert != "" {
		scheme = "https"
	}
	if cfg.PublicURL == "" {
		cfg.PublicURL = scheme + "://" + ln.Addr().String()
	}
	if cfg.IPFSGatewayURL == "" {
		cfg.IPFSGatewayURL = cfg.PublicURL
	}

	parts, err := wiring.OpenParts(ctx, &cfg, logger, &closers)
	if err != nil {
		ln.Close()
		return err
	}
	crash, clock := crashHook(getenv), testClock(getenv)
	if cfg.RetentionEvery <= 0 {
		ln.Close()
		return errors.New("--retention-every must be above 0")
	}
	svc := &seald.Service{
		Now: clock, ErasureLog: wiring.OpenErasureLog(cfg.DataDir), Crash: crash, Store: store, Secrets: secrets, Blobs: parts.Blobs, Canonicalize: wiring.CanonicalizeData,
		PublicURL: cfg.PublicURL, Chains: parts.Chains, Logger: logger, CacheTTL: cfg.AuthCacheTTL, MaxBacklog: cfg.MaxBacklog,
	}
	pipe := &pipeline.Pipeline{
		Store: store, Secrets: secrets, Blobs: parts.Blobs, Anchorers: parts.Anchorers, Mailer: parts.Mailer,
		Link: svc.VerificationLink, Workers: cfg.Workers, Lease: cfg.JobLease, Logger: logger,
		Anchor: pipeline.AnchorPolicy{MaxRecords: cfg.BatchSize, MaxWait: cfg.BatchWait},
		Crash:  crash, Now: clock,
	}
	svc.Wake = pipe.Wake
	if g, ok := parts.Gateway.(*ipfs.Gateway); ok {
		g.Gone = svc.ErasedCID
	}
	allow, err := webhook.ParseAllow(cfg.WebhookAllow)
	if err != nil {
		ln.Close()
		return fmt.Errorf("--webhook-allow: %v", err)
	}
	if cfg.WebhookTimeout == 0 {
		cfg.WebhookTimeout = min(10*time.Second, cfg.JobLease/2)
	}
	if cfg.WebhookTimeout <= 0 || cfg.WebhookTimeout >= cfg.JobLease {
		ln.Close()
		return fmt.Errorf("--webhook-timeout must be above 0 and below --job-lease (%s)", cfg.JobLease)
	}
	sender := &webhook.Sender{Allow: allow, Timeout: cfg.WebhookTimeout}
	deliverer := &pipeline.Deliverer{
		Store: store, Sender: sender, Secrets: secrets, Lease: cfg.JobLease, Logger: logger,
		Retry: pipeline.WebhookRetry{Min: cfg.WebhookRetryMin, Max: cfg.WebhookRetryMax, For: cfg.WebhookRetryFor},
	}
	svc.Webhooks, svc.CheckWebhookTarget, svc.WakeWebhooks = store, sender.CheckURL, deliverer.Wake
	metrics := newMetrics(store, parts)
	pipe.Observer = metrics

	if !strings.HasPrefix(cfg.DatabaseSpec(), "postgres") {
		// The embedded store belongs to this one process: leases of a previous run are void.
		if err := store.ReleaseLeases(ctx); err != nil {
			return err
		}
	}
	if t, err := svc.EnsureDefaultTenant(ctx); err != nil {
		return err
	} else if t != nil {
		path := filepath.Join(cfg.DataDir, "credentials.json")
		if err := wiring.WritePrivateJSON(path, map[string]string{
			"business_id": t.Business.BusinessID, "project_id": t.Project.ProjectID,
			"subscription_key": t.SubscriptionKey, "api_key": t.APIKey,
		}); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "seald: first start: keys of the default business and project written to %s\n", path)
		fmt.Fprintf(stdout, "seald: notification e-mail is sent from %s (--mail-from) through %s (--smtp)\n", cfg.MailFrom, cmpOr(cfg.SMTP, "outbox"))
	}

	// The public verification page needs the service, so it is made here rather than in openParts.
	parts.Page = &web.Page{Service: svc, GatewayURL: cfg.IPFSGatewayURL, Logger: logger}
	api := &httpapi.Server{
		Service: svc, Logger: logger, BodyLimit: cfg.BodyLimit, RatePerSecond: cfg.Rate, RateBurst: cfg.RateBurst,
		TrustedProxies: cfg.TrustedProxies,
		GatewayURL:     cfg.IPFSGatewayURL, Gateway: parts.Gateway, ValidCID: parts.ValidCID, CanonicalCID: ipfs.Canonical, Page: parts.Page,
		Ready: parts.Ready(store), Metrics: metrics.Request,
	}
	if cfg.Metrics == "api" {
		api.MetricsHandler = metrics.Handler()
	}
	srv := &http.Server{
		Handler:           withDebug(api.Handler()),
		ReadHeaderTimeout: httpapi.Timeouts.ReadHeader,
		ReadTimeout:       httpapi.Timeouts.Read,
		WriteTimeout:      httpapi.Timeouts.Write,
		IdleTimeout:       httpapi.Timeouts.Idle,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			ln.Close()
			return fmt.Errorf("tls: %w", err)
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(ln, srv.TLSConfig)
	}

	metricsSrv, err := serveMetrics(&cfg, metrics, logger)
	if err != nil {
		ln.Close()
		return err
	}

	// A database restored from a backup taken before some erasures shows those records with their data
	// keys again: the erasure log, kept outside the database, erases them again before anything is served.
	if n, err := svc.ReplayErasures(ctx); err != nil {
		ln.Close()
		return fmt.Errorf("replay the erasure log: %w", err)
	} else if n > 0 {
		logger.Warn("erased again the records the erasure log lists and the database did not show erased (a restored backup?)", "records", n)
	}

	pipeCtx, stopPipe := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { _ = pipe.Run(pipeCtx) })
	wg.Go(func() { _ = pipeline.Every(pipeCtx, cfg.RetentionEvery, logger, "retention", retentionSweep(svc)) })
	wg.Go(func() { _ = deliverer.Run(pipeCtx) })
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	logger.Info("serving", "addr", ln.Addr().String(), "public_url", cfg.PublicURL, "database", redactDSN(cfg.DatabaseSpec()))
	fmt.Fprintf(stdout, "seald: listening on %s://%s\n", scheme, ln.Addr().String())

	select {
	case <-ctx.Done():
	case err = <-serveErr:
	}
	logger.Info("shutting down")
	shutCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Stop accepting and drain the requests in flight; then stop the pipeline, whose running steps finish
	// (their effect saved) or, failing, release their claims through RetryJob; the store closes last
	// (closers, deferred above).
	if serr := srv.Shutdown(shutCtx); serr != nil {
		logger.Warn("shutdown", "err", serr)
	}
	stopPipe()
	wg.Wait()
	if metricsSrv != nil {
		_ = metricsSrv.Shutdown(shutCtx)
	}
	logger.Info("stopped")
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %v", err)
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// redactDSN hides a password in a database URL for the log.
func redactDSN(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		if at := strings.LastIndex(s, "@"); at > i {
			if c := strings.Index(s[i+3:at], ":"); c >= 0 {
				return s[:i+3+c] + ":***" + s[at:]
			}
		}
	}
	return s
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// retentionSweep erases, in rounds of 500, the records past their project's retention.
func retentionSweep(svc *seald.Service) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		for {
			n, err := svc.EraseExpired(ctx, 500)
			if err != nil || n < 500 {
				return err
			}
		}
	}
}
