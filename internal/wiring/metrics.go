package wiring

import (
	"context"
	"fmt"
	"math/big"
	"net"
	"net/http"

	"seald.dev/seald"
	"seald.dev/seald/httpapi"
	"seald.dev/seald/prom"
)

// newMetrics builds the Prometheus registry: queue depth and backlog from the store and the signer balance of
// every network whose Anchorer can read it, all at each scrape.
func newMetrics(store seald.Store, p *Parts, maxBacklog int) *prom.Metrics {
	balances := map[string]func(context.Context) (*big.Int, error){}
	for network, a := range p.Anchorers {
		if b, ok := a.(interface {
			Balance(context.Context) (*big.Int, error)
		}); ok {
			balances[network] = b.Balance
		}
	}
	return prom.New(prom.Options{Jobs: store.CountJobs, Failing: store.OldestFailing, Waiting: store.CountWaiting,
		Backlog: store.CountWaitingByNetwork, MaxBacklog: maxBacklog, Balances: balances})
}

// listenMetrics opens the separate metrics listener when --metrics is an address, and returns its server
// (served by App.Run); nil for "api" and "off". It listens at build time so that an address in use stops
// the start.
func listenMetrics(cfg *Config, m *prom.Metrics) (*http.Server, net.Listener, error) {
	switch cfg.Metrics {
	case "api", "off":
		return nil, nil, nil
	}
	ln, err := net.Listen("tcp", cfg.Metrics)
	if err != nil {
		return nil, nil, fmt.Errorf("--metrics must be api, off or host:port: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: httpapi.Timeouts.ReadHeader, WriteTimeout: httpapi.Timeouts.Write}
	return srv, ln, nil
}
