package wiring

import (
	"cmp"
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
	"sync"

	"seald.dev/seald"
	"seald.dev/seald/console"
	"seald.dev/seald/httpapi"
	"seald.dev/seald/ipfs"
	"seald.dev/seald/mail"
	"seald.dev/seald/pipeline"
	"seald.dev/seald/prom"
	"seald.dev/seald/secret"
	"seald.dev/seald/service"
	"seald.dev/seald/web"
	"seald.dev/seald/webhook"
)

// Mode says how much of seald Build puts together.
type Mode int

const (
	// Serve builds everything `seald serve` runs: the API's listener and server, the pipeline, the webhook
	// deliverer, the metrics and the retention sweep.
	Serve Mode = iota
	// Operator builds only the secrets, the store and the Service over them, for the operator commands
	// (tenant, key, record, project): nothing listens and no pipeline runs, so they may run beside serve.
	// It opens only a store serve created (RequireStore), and creates nothing.
	Operator
)

// Options are what differs between the callers of Build; everything else comes from the Config.
type Options struct {
	Mode Mode
	// Getenv reads the secrets passphrase (PassphraseEnv) and, in crashtest builds only, the crash and
	// clock switches of the tests (hooks_crashtest.go); read through Value. Nil reads nothing.
	Getenv func(string) string
	// Stdout takes the lines meant for the operator: where the first start wrote the default tenant's
	// keys, and where the API listens (nil: discarded).
	Stdout io.Writer
	// Stderr takes the JSON log at --log-level (nil: discarded).
	Stderr io.Writer
	// Listener is the API's listener when the caller already has one (nil: Build listens on Config.Addr).
	// The App owns it from then on: it is closed with the App, or when Build fails.
	Listener net.Listener
}

// App is a seald put together by Build. Run serves it; Close releases what Build opened.
type App struct {
	// Config is the configuration as completed by Build (public URL, gateway URL).
	Config  Config
	Logger  *slog.Logger
	Store   seald.Store
	Secrets *secret.Keys
	Service *service.Service
	// DefaultTenant is the tenant this start created in an empty store (its keys are in
	// <data-dir>/credentials.json); nil when the store had one already, and in Operator mode.
	DefaultTenant *seald.Tenant

	// The rest is nil in Operator mode.
	Pipeline  *pipeline.Pipeline
	Deliverer *pipeline.Deliverer
	Parts     *Parts
	Metrics   *prom.Metrics
	// Server is the API's HTTP server; URL is the base URL it answers on (http(s)://host:port).
	Server *http.Server
	URL    string

	listener      net.Listener
	metricsServer *http.Server
	metricsLn     net.Listener
	stdout        io.Writer
	closers       CloseList
	closeOnce     sync.Once
}

// Build puts seald together from cfg, the one place that does: serve, sealbench and the operator commands
// all call it, so what the bench measures and what the operator commands change is what serve runs. In
// Serve mode it checks cfg (Config.Validate) before opening anything, then opens the secrets, the store,
// the parts, the service, the pipeline and the API, creates the default tenant of an empty store and
// replays the erasure log; nothing runs until App.Run. When it fails, everything it opened is closed.
func Build(ctx context.Context, cfg Config, opts Options) (_ *App, err error) {
	opts.Stdout = cmp.Or[io.Writer](opts.Stdout, io.Discard)
	opts.Stderr = cmp.Or[io.Writer](opts.Stderr, io.Discard)
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	a := &App{Config: cfg, stdout: opts.Stdout, Logger: slog.New(slog.NewJSONHandler(opts.Stderr, nil))}
	if opts.Listener != nil {
		a.closers.Add("listener", closeListener(opts.Listener))
	}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	if opts.Mode == Operator {
		return a, a.openService(ctx, opts, false)
	}
	if err := a.Config.Validate(); err != nil {
		return nil, err
	}
	level, _ := parseLevel(cfg.LogLevel)
	a.Logger = slog.New(slog.NewJSONHandler(opts.Stderr, &slog.HandlerOptions{Level: level}))
	if err := a.openService(ctx, opts, true); err != nil {
		return nil, err
	}
	if err := a.listen(opts.Listener); err != nil {
		return nil, err
	}
	if err := a.assemble(ctx, opts); err != nil {
		return nil, err
	}
	return a, nil
}

// openService opens the secrets and the store of the data dir and the Service over them: the part the
// operator commands share with serve. serving adds serve's start checks.
func (a *App) openService(ctx context.Context, opts Options, serving bool) error {
	cfg := &a.Config
	if !serving {
		if err := RequireStore(ctx, cfg); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return err
	}
	secrets, created, err := LoadSecrets(cfg.SecretsPath(), Value(opts.Getenv(PassphraseEnv)))
	if err != nil {
		return err
	}
	store, err := OpenStore(ctx, cfg)
	if err != nil {
		if serving {
			err = fmt.Errorf("open store: %w", err)
		}
		return err
	}
	a.closers.Add("store", store.Close)
	a.Store, a.Secrets = store, secrets
	a.Service = &service.Service{Store: store, Secrets: secrets, Canonicalize: CanonicalizeData,
		ErasureLog: OpenErasureLog(cfg.DataDir), Logger: a.Logger}
	if !serving {
		return nil
	}
	secrets.SetPasswordBudget(cfg.PasswordMemory << 20)
	if c := testPasswordCost(opts.Getenv); c != nil {
		secrets.SetPasswordCost(*c)
	}
	if created {
		if err := RefuseNewSecrets(ctx, store, cfg.SecretsPath()); err != nil {
			return err
		}
	}
	if cfg.EmbeddedIPFS() && cfg.UsesPostgres() {
		// The embedded IPFS store lives in this instance's data dir: a second instance on the same database
		// could not serve the envelopes the first stored. One instance holds the database's embedded-IPFS
		// lock for as long as it runs; another is refused here rather than answering 500s later. A SQLite
		// store belongs to one process and needs no such lock.
		l, err := store.TryLock(ctx, "embedded-ipfs")
		if err != nil {
			return fmt.Errorf("open store: %w", err)
		}
		if l == nil {
			return errors.New("--ipfs embedded: another instance on this database already keeps the envelopes in its own " +
				"embedded IPFS store, which this one could not read; instances sharing a database need a shared IPFS node: " +
				"give each --ipfs http://KUBO:5001")
		}
		a.closers.Add("embedded-ipfs lock", func() error { l.Release(); return nil })
	}
	return nil
}

// listen opens the API's listener (or takes the caller's) and completes the URLs that default to it.
func (a *App) listen(ln net.Listener) error {
	cfg := &a.Config
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", cfg.Addr); err != nil {
			return err
		}
		a.closers.Add("listener", closeListener(ln))
	}
	a.listener = ln
	scheme := "http"
	if cfg.TLSCert != "" {
		scheme = "https"
	}
	a.URL = scheme + "://" + ln.Addr().String()
	cfg.PublicURL = cmp.Or(cfg.PublicURL, a.URL)
	cfg.IPFSGatewayURL = cmp.Or(cfg.IPFSGatewayURL, cfg.PublicURL)
	return nil
}

// closeListener closes a listener that http.Server.Shutdown may have closed already.
func closeListener(ln net.Listener) func() error {
	return func() error {
		if err := ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			return err
		}
		return nil
	}
}

// assemble opens the parts and builds the pipeline, the webhook deliverer, the metrics and the API over the
// service, then makes the store ready to serve: leases of an earlier run released (SQLite), the default
// tenant created, erasures replayed.
func (a *App) assemble(ctx context.Context, opts Options) error {
	cfg, store, secrets, svc, logger := &a.Config, a.Store, a.Secrets, a.Service, a.Logger
	parts, err := OpenParts(ctx, cfg, logger, &a.closers)
	if err != nil {
		return err
	}
	a.Parts = parts
	crash, clock := crashHook(opts.Getenv), testClock(opts.Getenv)
	svc.Now, svc.Crash, svc.Blobs, svc.PublicURL, svc.Chains = clock, crash, parts.Blobs, cfg.PublicURL, parts.Chains
	if o, ok := parts.Mailer.(*mail.Outbox); ok {
		o.Crash = crash // before the pipeline's first Send
	}
	svc.CacheTTL, svc.MaxBacklog = cfg.AuthCacheTTL, cfg.MaxBacklog
	svc.MaxProjectBacklog = cfg.MaxProjectBacklog
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
	allow, _ := webhook.ParseAllow(cfg.WebhookAllow) // checked by Validate
	sender := &webhook.Sender{Allow: allow, Timeout: cfg.WebhookAttemptTimeout()}
	deliverer := &pipeline.Deliverer{
		Store: store, Sender: sender, Secrets: secrets, Lease: cfg.JobLease, Logger: logger,
		Retry: pipeline.WebhookRetry{Min: cfg.WebhookRetryMin, Max: cfg.WebhookRetryMax, For: cfg.WebhookRetryFor},
	}
	svc.Webhooks, svc.CheckWebhookTarget, svc.WakeWebhooks = store, sender.CheckURL, deliverer.Wake
	svc.Identities, svc.FetchDID = store, didFetcher(allow)
	metrics := newMetrics(store, parts, cfg.MaxBacklog)
	pipe.Observer = metrics
	a.Pipeline, a.Deliverer, a.Metrics = pipe, deliverer, metrics

	if !cfg.UsesPostgres() {
		// The embedded store belongs to this one process: leases of a previous run are void.
		if err := store.ReleaseLeases(ctx); err != nil {
			return err
		}
	}
	if err := a.ensureDefaultTenant(ctx); err != nil {
		return err
	}
	if err := a.buildServer(); err != nil {
		return err
	}
	if a.metricsServer, a.metricsLn, err = listenMetrics(cfg, metrics); err != nil {
		return err
	}
	if a.metricsLn != nil {
		a.closers.Add("metrics listener", closeListener(a.metricsLn))
	}
	// A database restored from a backup taken before some erasures shows those records with their data
	// keys again: the erasure log, kept outside the database, erases them again before anything is served.
	if n, err := svc.ReplayErasures(ctx); err != nil {
		return fmt.Errorf("replay the erasure log: %w", err)
	} else if n > 0 {
		logger.Warn("erased again the records the erasure log lists and the database did not show erased (a restored backup?)", "records", n)
	}
	return nil
}

// ensureDefaultTenant creates a tenant in an empty store and writes its keys to <data-dir>/credentials.json,
// so that a first start can be used at once.
func (a *App) ensureDefaultTenant(ctx context.Context) error {
	t, err := a.Service.EnsureDefaultTenant(ctx, seald.Operator())
	if err != nil || t == nil {
		return err
	}
	a.DefaultTenant = t
	path := filepath.Join(a.Config.DataDir, "credentials.json")
	if err := WritePrivateJSON(path, map[string]string{
		"business_id": t.Business.BusinessID, "project_id": t.Project.ProjectID,
		"subscription_key": t.SubscriptionKey, "api_key": t.APIKey,
	}); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "seald: first start: keys of the default business and project written to %s\n", path)
	fmt.Fprintf(a.stdout, "seald: notification e-mail is sent from %s (--mail-from) through %s (--smtp)\n",
		a.Config.MailFrom, cmp.Or(a.Config.SMTP, "outbox"))
	return nil
}

// buildServer makes the verification page, the API and its http.Server (TLS when configured).
func (a *App) buildServer() error {
	cfg, svc, parts := &a.Config, a.Service, a.Parts
	parts.Page = &web.Page{Service: svc, GatewayURL: cfg.IPFSGatewayURL, Logger: a.Logger, BlockTimes: blockTimes(parts.Anchorers)}
	api := &httpapi.Server{
		Service: svc, Logger: a.Logger, BodyLimit: cfg.BodyLimit, RatePerSecond: cfg.Rate, RateBurst: cfg.RateBurst,
		TrustedProxies: cfg.TrustedProxies,
		GatewayURL:     cfg.IPFSGatewayURL, Gateway: parts.Gateway, ValidCID: parts.ValidCID, CanonicalCID: ipfs.Canonical, Page: parts.Page,
		Ready: parts.Ready(a.Store), Metrics: a.Metrics.Request,
		// Records as verifiable credentials, issued under the service's own did:web (credentials.go).
		Credentials: &service.Credentials{Service: a.Service, Statuses: a.Store},
	}
	if cfg.Metrics == "api" {
		api.MetricsHandler = a.Metrics.Handler()
	}
	// The console's failed sign-ins count in the API's own budget of failed authentications.
	api.Console = &console.Console{Service: svc, Throttle: api, Limits: api, Logger: a.Logger}
	a.Server = &http.Server{
		Handler:           withDebug(api.Handler()),
		ReadHeaderTimeout: httpapi.Timeouts.ReadHeader,
		ReadTimeout:       httpapi.Timeouts.Read,
		WriteTimeout:      httpapi.Timeouts.Write,
		IdleTimeout:       httpapi.Timeouts.Idle,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(a.Logger.Handler(), slog.LevelWarn),
	}
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return fmt.Errorf("tls: %w", err)
		}
		a.Server.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		a.listener = tls.NewListener(a.listener, a.Server.TLSConfig)
	}
	return nil
}
