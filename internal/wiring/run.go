package wiring

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"seald.dev/seald/pipeline"
	"seald.dev/seald/service"
)

// ShutdownTimeout bounds the drain of requests in flight when Run's context ends.
const ShutdownTimeout = 20 * time.Second

// Run serves the API and runs the pipeline, the webhook deliverer and the retention sweep until ctx ends or
// the server fails, then shuts down in order: stop accepting and drain the requests in flight, stop the
// background work (running steps finish, their effect saved, or release their claims through RetryJob), and
// close the parts and the store last (Close). An App runs once.
func (a *App) Run(ctx context.Context) error {
	defer a.Close()
	if a.Server == nil {
		return errors.New("wiring: an App built in Operator mode does not serve")
	}
	cfg, logger := &a.Config, a.Logger
	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	var wg sync.WaitGroup
	if !cfg.PipelineOff {
		wg.Go(func() { _ = a.Pipeline.Run(workCtx) })
	}
	wg.Go(func() {
		_ = pipeline.Every(workCtx, cfg.RetentionEvery, logger, "retention", retentionSweep(a.Service))
	})
	wg.Go(func() { _ = a.Deliverer.Run(workCtx) })
	wg.Go(func() { _ = pipeline.Every(workCtx, IdentityEvery, logger, "identity", identitySweep(a.Service)) })
	if a.metricsServer != nil {
		go func() {
			if err := a.metricsServer.Serve(a.metricsLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
				logger.Error("metrics listener", "err", err)
			}
		}()
		logger.Info("metrics", "url", "http://"+a.metricsLn.Addr().String()+"/metrics")
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- a.Server.Serve(a.listener) }()
	logger.Info("serving", "addr", a.listener.Addr().String(), "public_url", cfg.PublicURL, "database", redactDSN(cfg.DatabaseSpec()))
	// Where the API commands on this data dir find this serve (written before saying it listens, so that
	// whoever waits for the one finds the other); removed on the way out.
	local := dialableURL(strings.SplitN(a.URL, "://", 2)[0], a.listener.Addr())
	if err := writeServeURL(cfg.DataDir, local); err != nil {
		logger.Warn("could not write "+ServeURLFile+": the API commands need --url", "err", err)
	} else {
		defer removeServeURL(cfg.DataDir, local)
	}
	fmt.Fprintf(a.stdout, "seald: listening on %s\n", a.URL)

	var err error
	select {
	case <-ctx.Done():
	case err = <-serveErr:
	}
	logger.Info("shutting down")
	shutCtx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if serr := a.Server.Shutdown(shutCtx); serr != nil {
		logger.Warn("shutdown", "err", serr)
	}
	stopWork()
	wg.Wait()
	if a.metricsServer != nil {
		_ = a.metricsServer.Shutdown(shutCtx)
	}
	logger.Info("stopped")
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// Close closes what Build opened, in the reverse order (the store last). Run calls it; a caller that builds
// an App and does not run it calls it instead. Closing twice does nothing.
func (a *App) Close() error {
	var err error
	a.closeOnce.Do(func() { err = a.closers.CloseAll(a.Logger) })
	return err
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

// retentionSweep erases, in rounds of 500, the records past their project's retention.
func retentionSweep(svc *service.Service) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		for {
			n, err := svc.EraseExpired(ctx, 500)
			if err != nil || n < 500 {
				return err
			}
		}
	}
}
