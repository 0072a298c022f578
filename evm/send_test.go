package evm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald"
)

// faultProxy stands between an Anchorer and the embedded chain's JSON-RPC over HTTP. A call that fault
// answers is answered here, as a node whose pool, state and transaction index are not in step would answer
// it (or as two nodes behind one URL would); every other call goes to the chain unchanged.
type faultProxy struct {
	url     string
	forward *httputil.ReverseProxy // to the chain
	// fault gets the method, its parameters and how often the method was called before; it returns the
	// answer to give instead of the chain's (a JSON-RPC response object without id), or nil.
	fault func(method string, params []json.RawMessage, calls int) map[string]any

	mu    sync.Mutex
	calls map[string]int
}

func startFaultProxy(t *testing.T, e *Embedded, fault func(string, []json.RawMessage, int) map[string]any) *faultProxy {
	t.Helper()
	if e.RPCURL() == "" {
		t.Fatal("the chain serves no RPC")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	upstream, err := url.Parse(e.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{url: "http://" + ln.Addr().String(), forward: httputil.NewSingleHostReverseProxy(upstream),
		fault: fault, calls: map[string]int{}}
	srv := &http.Server{Handler: p}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return p
}

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &req) == nil && req.Method != "" { // a batch goes through unchanged
		p.mu.Lock()
		n := p.calls[req.Method]
		p.calls[req.Method]++
		p.mu.Unlock()
		if answer := p.fault(req.Method, req.Params, n); answer != nil {
			answer["jsonrpc"], answer["id"] = "2.0", req.ID
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(answer)
			return
		}
	}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	p.forward.ServeHTTP(w, r)
}

// count is how often method was called.
func (p *faultProxy) count(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[method]
}

// proxiedAnchorer is an Anchorer of the chain's key that speaks to the chain through p.
func proxiedAnchorer(t *testing.T, e *Embedded, p *faultProxy) *Anchorer {
	t.Helper()
	client, err := ethclient.Dial(p.url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	a, err := NewAnchorer(context.Background(), client, e.Contract(), e.Key(), seald.NetworkPolygon, Options{PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// about reports whether a call's first parameter is the transaction hash h.
func about(params []json.RawMessage, h common.Hash) bool {
	var got common.Hash
	return len(params) > 0 && json.Unmarshal(params[0], &got) == nil && got == h
}

// TestSendSeesOutOfStepNode checks that Send never calls a nonce taken by another transaction while the
// answers it weighs disagree for a moment: the chain did include the transaction (or will), and declaring
// ErrNonceUsed would make the anchor leader fail the batch and anchor its records a second time.
func TestSendSeesOutOfStepNode(t *testing.T) {
	e := openChain(t, EmbeddedOptions{RPCAddr: "127.0.0.1:0"})
	a := newAnchorer(t, e)
	ctx := context.Background()

	// The chain mined the transaction, but its receipt and the transaction itself are not found for a
	// few lookups, as from a node whose transaction index trails its state, while the pool answers
	// "nonce too low".
	t.Run("index lags", func(t *testing.T) {
		b := anchorBatch(t, a, "lag", 3)
		h := common.HexToHash(b.tx.TxHash)
		for e.eth.TxPool().Has(h) { // the pool has caught up with the block: it answers "nonce too low"
			time.Sleep(5 * time.Millisecond)
		}
		const lag = 3
		p := startFaultProxy(t, e, func(method string, params []json.RawMessage, calls int) map[string]any {
			if (method == "eth_getTransactionReceipt" || method == "eth_getTransactionByHash") && calls < lag && about(params, h) {
				return map[string]any{"result": nil}
			}
			return nil
		})
		if err := proxiedAnchorer(t, e, p).Send(ctx, b.tx.RawTx); err != nil {
			t.Fatalf("re-sending a mined transaction through a lagging index: %v", err)
		}
		if n := p.count("eth_getTransactionReceipt"); n < lag {
			t.Errorf("the receipt was looked up %d times, fewer than the lag", n)
		}
	})

	// The pool refuses the transaction as "nonce too low" while the chain has not passed its nonce, as
	// geth's pool does between a rewind or a reorganisation of the chain and its own reset to the new head.
	t.Run("pool behind the chain", func(t *testing.T) {
		first, err := a.NextTokenID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		hashes := contentHashes("stale-pool", 4)
		b, err := a.BuildBatch(ctx, seald.BatchRequest{FirstTokenID: first, Hashes: hashes})
		if err != nil {
			t.Fatal(err)
		}
		const stale = 2
		p := startFaultProxy(t, e, func(method string, _ []json.RawMessage, calls int) map[string]any {
			if method == "eth_sendRawTransaction" && calls < stale {
				return map[string]any{"error": map[string]any{"code": -32000, "message": "nonce too low: next nonce 99, tx nonce 1"}}
			}
			return nil
		})
		if err := proxiedAnchorer(t, e, p).Send(ctx, b.RawTx); err != nil {
			t.Fatalf("sending through a pool behind the chain: %v", err)
		}
		if n := p.count("eth_sendRawTransaction"); n != stale+1 {
			t.Errorf("sent %d times, want %d", n, stale+1)
		}
		checkBatch(t, e, anchored{first: first, hashes: hashes, tx: b, receipt: waitReceipt(t, a, b.TxHash)})
	})

	// Looking again honours the context: its end is no proof that another transaction took the nonce,
	// whether it comes while Send waits to look again or cuts a lookup short.
	for _, tc := range []struct {
		name  string
		stall string // a method the proxy answers only after the context has ended
	}{
		{"context ends between looks", ""},
		{"context ends during the receipt's lookup", "eth_getTransactionReceipt"},
		{"context ends during the nonce's lookup", "eth_getTransactionCount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first, err := a.NextTokenID(ctx)
			if err != nil {
				t.Fatal(err)
			}
			b, err := a.BuildBatch(ctx, seald.BatchRequest{FirstTokenID: first, Hashes: contentHashes("ctx "+tc.name, 1)})
			if err != nil {
				t.Fatal(err)
			}
			const within = 300 * time.Millisecond
			p := startFaultProxy(t, e, func(method string, _ []json.RawMessage, _ int) map[string]any {
				if method == tc.stall {
					time.Sleep(2 * within)
				}
				if method == "eth_sendRawTransaction" {
					return map[string]any{"error": map[string]any{"code": -32000, "message": "nonce too low"}}
				}
				return nil
			})
			short, cancel := context.WithTimeout(ctx, within)
			defer cancel()
			err = proxiedAnchorer(t, e, p).Send(short, b.RawTx)
			if err == nil || errors.Is(err, ErrNonceUsed) || seald.IsPermanent(err) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("send whose context ended while the pool said nonce too low: %v", err)
			}
		})
	}
}
