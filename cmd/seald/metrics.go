package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"net/http"

	"seald.dev/seald"
	"seald.dev/seald/httpapi"
	"seald.dev/seald/internal/wiring"
	"seald.dev/seald/prom"
)

// newMetrics builds the Prometheus registry: queue depth from the store and the signer balance of every
// network whose Anchorer can read it, both at each scrape.
func newMetrics(store seald.Store, p *wiring.Parts) *prom.Metrics {
	balances := map[string]func(context.Context) (*big.Int, error){}
	for network, a := range p.Anchorers {
		if b, ok := a.(interface {
			Balance(context.Context) (*big.Int, error)
		}); ok {
			balances[network] = b.Balance
		}
	}
	return prom.New(prom.Options{Jobs: store.CountJobs, Failing: store.OldestFailing, Waiting: store.CountWaiting, Balances: balances})
}

// serveMetrics starts the separate metrics listener when --metrics is an address; nil for "api" and "off".
func serveMetrics(cfg *wiring.Config, m *prom.Metrics, logger *slog.Logger) (*http.Server, error) {
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
