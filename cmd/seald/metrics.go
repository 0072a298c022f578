package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"

	"seald"
	"seald/httpapi"
	"seald/prom"
)

// newMetrics builds the Prometheus registry: queue depth from the store and the signer balance of every
// network whose Anchorer can read it, both at each scrape.
func newMetrics(store seald.Store, p *parts) *prom.Metrics {
	balances := map[string]func(context.Context) (*big.Int, error){}
	for network, a := range p.anchorers {
		if b, ok := a.(interface {
			Balance(context.Context) (*big.Int, error)
		}); ok {
			balances[network] = b.Balance
		}
	}
	return prom.New(prom.Options{Jobs: store.CountJobs, Balances: balances})
}

// serveMetrics starts the separate metrics listener when --metrics is an address; nil for "api" and "off".
func serveMetrics(cfg *Config, m *prom.Metrics, logger *slog.Logger) (*http.Server, error) {
	switch cfg.Metrics {
	case "api", "off":
		return nil, nil
	}
	ln, err := net.Listen("tcp", cfg.Metrics)
	if err != nil {
		return nil, fmt.Errorf("--metrics must be api, off or host:port: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: httpapi.Timeouts.ReadHeader, WriteTimeout: httpapi.Timeouts.Write}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics listener", "err", err)
		}
	}()
	logger.Info("metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return srv, nil
}

// refuseNewSecrets stops a start that has just created a secrets file while the store already holds
// tenants: that instance would encrypt with a master key and sign with a key the others do not have. It is
// the usual mistake when a second instance is added without copying the first one's secrets file.
func refuseNewSecrets(ctx context.Context, store seald.Store, path string) error {
	n, err := store.CountBusinesses(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	_ = os.Remove(path)
	return fmt.Errorf("%s did not exist, but the database already has %d business(es): copy the secrets file "+
		"of the instance that created them (--secrets-file), never start an instance with new secrets on a used database", path, n)
}
