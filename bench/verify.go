package bench

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"seald.dev/seald/client"

	"github.com/google/uuid"

	"seald.dev/seald"
)

// VerifyRun is the verification section on one store.
type VerifyRun struct {
	Store          string  `json:"store"`
	Records        int     `json:"records"`
	PreloadSeconds float64 `json:"preload_seconds"`
	PreloadRate    float64 `json:"preload_records_per_second"`
	ResponseBytes  int     `json:"response_bytes"`
	ByHash         []Load  `json:"by_hash"`
	ByReference    []Load  `json:"by_reference"`
	Ceiling        []Load  `json:"ceiling"`
	// Console is the console's records list on the same preloaded store (console.go).
	Console *ConsoleRun `json:"console,omitempty"`
}

// at returns the load of loads at conns connections.
func at(loads []Load, conns int) (Load, bool) {
	for _, l := range loads {
		if l.Conns == conns {
			return l, true
		}
	}
	return Load{}, false
}

func runVerify(ctx context.Context, cfg Config, open Opener, rep *Report) ([]*VerifyRun, error) {
	var out []*VerifyRun
	for _, st := range stores(ctx, cfg, rep) {
		r, err := verifyStore(ctx, cfg, open, st)
		st.drop()
		if err != nil {
			return out, fmt.Errorf("%s: %w", st.name, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func verifyStore(ctx context.Context, cfg Config, open Opener, st storeRun) (*VerifyRun, error) {
	sys, closeSys, err := openFresh(ctx, open, st.database, false)
	if err != nil {
		return nil, err
	}
	defer closeSys()
	run := &VerifyRun{Store: st.name, Records: cfg.Records}
	t0 := time.Now()
	refs, hashes, err := preload(ctx, sys, cfg.Records, func(i int, at time.Time) *seald.Record {
		return benchRecord(sys, i, preloadReference(i), at)
	}, cfg.Log)
	if err != nil {
		return nil, fmt.Errorf("preload: %w", err)
	}
	if st.database != "" {
		// As an operator would after an import, and so that autovacuum does not start on the fresh million
		// rows in the middle of a load.
		if err := vacuumAnalyze(ctx, st.database); err != nil {
			return nil, err
		}
	}
	run.PreloadSeconds = time.Since(t0).Seconds()
	run.PreloadRate = float64(cfg.Records) / run.PreloadSeconds
	fmt.Fprintf(cfg.Log, "bench: %s: %d records preloaded in %.1fs\n", st.name, cfg.Records, run.PreloadSeconds)
	run.Console = measureConsole(ctx, cfg, sys, refs)

	base := sys.URL
	const byRef, byHash = "/verification/api/v1/verify/reference", "/verification/api/v1/verify/hash"
	body, err := getOnce(ctx, base+byRef+"?reference="+refs[0], sys)
	if err != nil {
		return nil, err
	}
	run.ResponseBytes = len(body)
	// The ceiling answers the very bytes of a real verification, so the client decodes the same thing from
	// both and the ratio is the server's alone.
	ceilBase, stopCeil, err := serveLoopback(staticBody(http.StatusOK, body))
	if err != nil {
		return nil, err
	}
	defer stopCeil()

	var rss peakRSS
	for _, c := range cfg.Conns {
		hc := newClient(c)
		api, ceil := sys.client(base, hc), sys.client(ceilBase, hc)
		measure := func(name string, req Request) Load {
			rss.Reset()
			load := func() Load { return closedLoop(ctx, c, cfg.Warmup, cfg.Duration, req) }
			var l Load
			if name == "ceiling" {
				l = load()
			} else {
				l = profiled(cfg, fmt.Sprintf("verify-%s-%s-%d", st.name, strings.ReplaceAll(name, " ", "-"), c), load)
			}
			l.PeakRSSMB = rss.MB()
			hc.CloseIdleConnections()
			fmt.Fprintf(cfg.Log, "bench: %s %-12s %3d conns: %8.0f req/s p50 %.2f ms p99 %.2f ms errors %d\n",
				st.name, name, c, l.Rate, l.Latency.P50, l.Latency.P99, l.Errors)
			return l
		}
		// Interleaved per connection count, so that drift in the machine's load hits all three alike.
		run.Ceiling = append(run.Ceiling, measure("ceiling", verifyRequest(ceil.VerifyHash, hashes)))
		run.ByHash = append(run.ByHash, measure("by hash", verifyRequest(api.VerifyHash, hashes)))
		run.ByReference = append(run.ByReference, measure("by reference", verifyRequest(api.VerifyReference, refs)))
		if ctx.Err() != nil {
			return run, ctx.Err()
		}
	}
	return run, nil
}

// verifyRequest returns a Request that verifies one of values through a typed call of package client (which
// fails on anything but a 200 with a verification result). Values are visited in a scattered order so lookups
// hit the whole table.
func verifyRequest(call func(context.Context, string, ...client.VerifyOption) (*client.Verification, error), values []string) Request {
	return func(ctx context.Context, _ int, seq int64) error {
		_, err := call(ctx, values[int(uint64(seq)*2654435761%uint64(len(values)))])
		return err
	}
}

// getOnce GETs u with the keys of sys and returns the body of a 200.
func getOnce(ctx context.Context, u string, sys *System) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Ocp-Apim-Subscription-Key", sys.SubscriptionKey)
	req.Header.Set("Api-Key", sys.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %w: %s", u, errStatus(resp.StatusCode, http.StatusOK), b)
	}
	return b, nil
}

// staticBody is the ceiling: a bare net/http handler answering fixed bytes, those of a real answer of the
// operation measured, so the ceiling's body has the same size and costs the client the same decoding.
func staticBody(status int, body []byte) http.Handler {
	n := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil {
			_, _ = io.Copy(io.Discard, r.Body)
		}
		h := w.Header()
		h["Content-Type"] = []string{"application/json"}
		h["Content-Length"] = []string{n}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	})
}

// preloadChunk is how many records one bulk transaction carries.
const preloadChunk = 5000

// preload fills the store with n records through its bulk path, record i made by record(i, at) for creation
// time at (a millisecond apart, ending now), and returns the references and hashes of an even spread of them
// (at most 20,000) to look up.
func preload(ctx context.Context, sys *System, n int, record func(i int, at time.Time) *seald.Record, log io.Writer) (refs, hashes []string, err error) {
	if n < 1 {
		return nil, nil, errNoRecords
	}
	step := max(1, n/20000)
	start := time.Now().UTC().Add(-time.Duration(n) * time.Millisecond).Truncate(time.Millisecond)
	chunk := make([]*seald.Record, 0, preloadChunk)
	lastLog := time.Now()
	for i := 0; i < n; i++ {
		r := record(i, start.Add(time.Duration(i)*time.Millisecond))
		if i%step == 0 {
			refs, hashes = append(refs, r.Reference), append(hashes, r.Hash)
		}
		chunk = append(chunk, r)
		if len(chunk) == cap(chunk) || i == n-1 {
			if err := sys.Bulk(ctx, chunk); err != nil {
				return nil, nil, err
			}
			chunk = chunk[:0]
			if time.Since(lastLog) > 10*time.Second {
				fmt.Fprintf(log, "bench: preload %d/%d\n", i+1, n)
				lastLog = time.Now()
			}
		}
	}
	return refs, hashes, nil
}

// preloadReference is a valid reference (a lowercase version 4 UUID) whose first 32 bits are i, so that the
// bulk path inserts references in key order: with random ones, filling a million records spends most of its
// time on random B-tree inserts (SQLite went from about 6,000 to 1,500 records/s past a few hundred thousand),
// and the preload is not what is measured. The rest of the UUID stays random.
func preloadReference(i int) string {
	u := uuid.New()
	binary.BigEndian.PutUint32(u[:4], uint32(i))
	return seald.PrefixAuthentication + u.String()
}

// benchRecord is record i, under reference, as the pipeline leaves it: COMPLETED, with a CID, a token, a
// 10-node Merkle path (a batch of 1,024), a signature and the e-mail it was sent with, so rows and answers
// have their real size. It belongs to no batch (BatchID 0): verification does not read batches.
func benchRecord(sys *System, i int, reference string, at time.Time) *seald.Record {
	sum := sha256.Sum256([]byte("seald-bench/" + strconv.Itoa(i)))
	h := hex.EncodeToString(sum[:])
	node := func(k int) string {
		s := sha256.Sum256([]byte(h + strconv.Itoa(k)))
		return "0x" + hex.EncodeToString(s[:])
	}
	path := make([]string, 10)
	for k := range path {
		path[k] = node(k + 1)
	}
	// CID-shaped (a CIDv1 raw base32 prefix and a digest); verification only echoes it.
	cid := "bafkrei" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:]))[:52]
	sig := sha256.Sum256(sum[:])
	return &seald.Record{
		Reference: reference, Pipeline: seald.PipelinePolygon,
		BusinessID: sys.BusinessID, ProjectID: sys.ProjectID, Network: seald.NetworkPolygon, Hash: h,
		MimeType: "application/json", Privacy: sys.Privacy, Status: seald.StatusActive, State: seald.StateCompleted,
		CID: cid, EncryptedFile: "ipfs://" + cid, TokenID: uint64(i) + 1, Leaf: node(0), MerklePath: path,
		IsEmail: true, IsEncrypted: true, IsSigned: true, Downloadable: true,
		Mail:      &seald.MailRequest{To: []string{"bench@example.com"}, Subject: seald.DefaultSubject, Body: seald.DefaultBody},
		MessageID: "<" + h[:32] + "@seald.bench>", Signature: base64.StdEncoding.EncodeToString(append(sig[:], sig[:]...)),
		CreatedAt: at, UpdatedAt: at,
	}
}
