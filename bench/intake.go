package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"

	"seald.dev/seald/client"

	"seald.dev/seald"
)

// IntakeRun is the intake section on one store: authentications accepted (201) per second with the pipeline
// off, so the figure is acceptance and durable commit only (canonical hash, record, payload and first job in
// one transaction), beside a bare handler reading the same bodies and answering the same number of bytes.
type IntakeRun struct {
	Store         string `json:"store"`
	Conns         int    `json:"connections"`
	RequestBytes  int    `json:"request_bytes"`
	ResponseBytes int    `json:"response_bytes"`
	Seald         Load   `json:"seald"`
	Ceiling       Load   `json:"ceiling"`
	// Accepted counts every 201, warm-up included; Committed the store jobs found afterwards, one per
	// accepted record (the pipeline being off): a check that nothing answered 201 was lost.
	Accepted  int64 `json:"accepted"`
	Committed int   `json:"committed_store_jobs"`
}

const sealPath = "/svc-data/data/authentication/ipfs/sm-polygon/email"

func runIntake(ctx context.Context, cfg Config, open Opener, rep *Report) ([]*IntakeRun, error) {
	var out []*IntakeRun
	for _, st := range stores(ctx, cfg, rep) {
		r, err := intakeStore(ctx, cfg, open, st)
		st.drop()
		if err != nil {
			return out, fmt.Errorf("%s: %w", st.name, err)
		}
		out = append(out, r)
		if rep.Peer == nil {
			rep.Peer = runPeer(ctx, cfg, r) // beside the first store's run, with its count
		}
	}
	return out, nil
}

func intakeStore(ctx context.Context, cfg Config, open Opener, st storeRun) (*IntakeRun, error) {
	sys, closeSys, err := openFresh(ctx, open, st.database, false)
	if err != nil {
		return nil, err
	}
	defer closeSys()
	base := sys.URL
	c := cfg.IntakeConns
	hc := newClient(c)
	run := &IntakeRun{Store: st.name, Conns: c, RequestBytes: len(sealBody(0))}
	first, err := postOnce(ctx, hc, base+sealPath, sealBody(-1), sys)
	if err != nil {
		return nil, err
	}
	run.ResponseBytes = len(first)
	ceilBase, stopCeil, err := serveLoopback(staticBody(http.StatusCreated, first))
	if err != nil {
		return nil, err
	}
	defer stopCeil()

	var rss peakRSS
	rss.Reset()
	run.Ceiling = closedLoop(ctx, c, cfg.Warmup, cfg.Duration, sealRequest(sys.client(ceilBase, hc), nil))
	run.Ceiling.PeakRSSMB = rss.MB()
	hc.CloseIdleConnections()
	var accepted atomic.Int64
	rss.Reset()
	run.Seald = profiled(cfg, "intake-"+st.name, func() Load {
		return closedLoop(ctx, c, cfg.Warmup, cfg.Duration, sealRequest(sys.client(base, hc), &accepted))
	})
	run.Seald.PeakRSSMB = rss.MB()
	hc.CloseIdleConnections()
	run.Accepted = accepted.Load() + 1 // and the first one
	fmt.Fprintf(cfg.Log, "bench: %s intake %d conns: %.0f/s (ceiling %.0f/s) p99 %.2f ms errors %d\n",
		st.name, c, run.Seald.Rate, run.Ceiling.Rate, run.Seald.Latency.P99, run.Seald.Errors)

	counts, err := sys.Store.CountJobs(ctx)
	if err != nil {
		return nil, err
	}
	run.Committed = counts[seald.JobStore]
	if int64(run.Committed) < run.Accepted {
		return run, fmt.Errorf("%d authentications answered 201 but only %d are in the store", run.Accepted, run.Committed)
	}
	return run, nil
}

// sealBody is authentication request i: a small invoice-like object, different for every request so each
// one is a new hash.
func sealBody(i int64) []byte {
	n := strconv.FormatInt(i, 10)
	return []byte(`{"data":{"invoice":"INV-` + n + `","customer":{"name":"Zürich Hauptbahnhof AG","vat":"CHE-123.456.789"},` +
		`"lines":[{"sku":"A-1","qty":3,"price":19.90},{"sku":"B-22","qty":1,"price":1250.00}],"total":1309.70,` +
		`"currency":"CHF","issued":"2026-01-15T10:00:00Z","seq":` + n + `},` +
		`"to":"bench@example.com","subject":"Your invoice","body":"Sealed for you","is_html":0}`)
}

// sealRequest returns a Request that seals sealBody(seq) through package client (which fails on anything but
// a 201 with a reference), counting each acceptance in accepted when not nil.
func sealRequest(c *client.Client, accepted *atomic.Int64) Request {
	return func(ctx context.Context, _ int, seq int64) error {
		if _, err := c.AuthenticateJSON(ctx, client.Polygon, sealBody(seq)); err != nil {
			return err
		}
		if accepted != nil {
			accepted.Add(1)
		}
		return nil
	}
}

// sealOnce seals authentication i through package client and returns its reference.
func sealOnce(ctx context.Context, c *client.Client, i int64) (string, error) {
	res, err := c.AuthenticateJSON(ctx, client.Polygon, sealBody(i))
	if err != nil {
		return "", err
	}
	return res.Reference, nil
}

// postOnce POSTs body to u with the keys of sys and returns the bytes of a 201: the one raw request, whose
// answer the ceiling then serves.
func postOnce(ctx context.Context, hc *http.Client, u string, body []byte, sys *System) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Ocp-Apim-Subscription-Key", sys.SubscriptionKey)
	req.Header.Set("Api-Key", sys.APIKey)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusCreated {
		return nil, fmt.Errorf("%w: %s", errStatus(resp.StatusCode, http.StatusCreated), b)
	}
	return b, nil
}
