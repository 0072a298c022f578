// Package eosevmtest stands in for EOS EVM in tests: a real geth node (package gethtest) behind a small
// JSON-RPC proxy that narrows what geth offers to what EOS EVM documents (eos-evm docs/API.md and its
// public behaviour). It refuses EIP-1559 and later typed raw transactions, answers blocks without
// baseFeePerGas, has no subscriptions, filters or eth_getProof, and answers a fixed eth_gasPrice, as EOS
// EVM's gas price is set by governance. Everything else goes to geth unchanged, so what the proxy lets
// through is real: the pool's replacement rules, gas, receipts, the contract.
//
// What it cannot show about the real network is listed in docs/operations.md (EOS EVM).
package eosevmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"

	"seald.dev/seald/evm/gethtest"
)

// DefaultGasPrice is the fixed gas price the proxy answers unless told otherwise: EOS EVM mainnet's at its
// launch, 150 gwei.
var DefaultGasPrice = big.NewInt(150 * params.GWei)

// Unsupported are the methods EOS EVM's JSON-RPC does not have, answered with "method not found" (-32601).
var Unsupported = []string{
	"eth_subscribe", "eth_unsubscribe",
	"eth_newFilter", "eth_newBlockFilter", "eth_newPendingTransactionFilter",
	"eth_getFilterChanges", "eth_getFilterLogs", "eth_uninstallFilter",
	"eth_getProof",
}

// Proxy is the stand-in: an HTTP JSON-RPC endpoint on loopback in front of a geth node.
type Proxy struct {
	// URL is the proxy's JSON-RPC endpoint, to give seald as --eos-chain.
	URL string

	geth *gethtest.Geth
	srv  *http.Server

	mu       sync.Mutex
	gasPrice *big.Int
	calls    map[string]int // by method, everything asked
	refused  map[string]int // by method, everything refused
}

// Start puts a proxy in front of g; it stops when the test ends. gasPrice nil means DefaultGasPrice; it must
// be high enough for geth to mine at (above its base fee plus its miner tip).
func Start(t testing.TB, g *gethtest.Geth, gasPrice *big.Int) *Proxy {
	t.Helper()
	if gasPrice == nil {
		gasPrice = DefaultGasPrice
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{URL: "http://" + ln.Addr().String(), geth: g, gasPrice: new(big.Int).Set(gasPrice),
		calls: map[string]int{}, refused: map[string]int{}}
	p.srv = &http.Server{Handler: p}
	go p.srv.Serve(ln)
	t.Cleanup(func() { p.srv.Close() })
	return p
}

// SetGasPrice changes the price eth_gasPrice answers, as a governance decision would.
func (p *Proxy) SetGasPrice(price *big.Int) {
	p.mu.Lock()
	p.gasPrice = new(big.Int).Set(price)
	p.mu.Unlock()
}

// Calls returns how often each method was asked.
func (p *Proxy) Calls() map[string]int { return p.counts(p.calls) }

// Refused returns how often each method was refused: an unsupported method, or a typed raw transaction
// under eth_sendRawTransaction.
func (p *Proxy) Refused() map[string]int { return p.counts(p.refused) }

func (p *Proxy) counts(m map[string]int) map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

type request struct {
	Version string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id"`
	Method  string            `json:"method"`
	Params  []json.RawMessage `json:"params"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type response struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// ServeHTTP answers one JSON-RPC request or a batch. Only HTTP POST is served: EOS EVM's endpoints are
// HTTP, and a WebSocket upgrade is refused like any other non-POST.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "JSON-RPC over HTTP POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var reqs []json.RawMessage
		if err := json.Unmarshal(trimmed, &reqs); err != nil {
			writeJSON(w, response{Version: "2.0", ID: json.RawMessage("null"), Error: &rpcError{-32700, "parse error"}})
			return
		}
		out := make([]json.RawMessage, len(reqs))
		for i, one := range reqs {
			out[i] = p.handle(r, one)
		}
		writeJSON(w, out)
		return
	}
	w.Write(p.handle(r, trimmed))
}

// handle answers one call: refused here, rewritten, or passed to geth as it came.
func (p *Proxy) handle(r *http.Request, raw []byte) json.RawMessage {
	var req request
	if err := json.Unmarshal(raw, &req); err != nil {
		return mustJSON(response{Version: "2.0", ID: json.RawMessage("null"), Error: &rpcError{-32700, "parse error"}})
	}
	p.mu.Lock()
	p.calls[req.Method]++
	gasPrice := new(big.Int).Set(p.gasPrice)
	p.mu.Unlock()
	refuse := func(code int, msg string) json.RawMessage {
		p.mu.Lock()
		p.refused[req.Method]++
		p.mu.Unlock()
		return mustJSON(response{Version: "2.0", ID: req.ID, Error: &rpcError{code, msg}})
	}
	for _, m := range Unsupported {
		if req.Method == m {
			return refuse(-32601, fmt.Sprintf("the method %s does not exist/is not available", m))
		}
	}
	switch req.Method {
	case "eth_gasPrice":
		return mustJSON(response{Version: "2.0", ID: req.ID, Result: mustJSON(hexutil.EncodeBig(gasPrice))})
	case "eth_sendRawTransaction":
		var tx hexutil.Bytes
		if len(req.Params) == 1 && json.Unmarshal(req.Params[0], &tx) == nil && len(tx) > 0 && tx[0] < 0x7f && tx[0] >= 2 {
			return refuse(-32000, fmt.Sprintf("unsupported transaction type %d", tx[0]))
		}
	}
	out, err := p.forward(r, raw)
	if err != nil {
		return mustJSON(response{Version: "2.0", ID: req.ID, Error: &rpcError{-32603, "upstream: " + err.Error()}})
	}
	if strings.HasPrefix(req.Method, "eth_getBlockBy") {
		return stripBaseFee(out)
	}
	return out
}

// forward sends one call to geth and returns its answer as it came.
func (p *Proxy) forward(r *http.Request, raw []byte) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, p.geth.URL, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
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
		return nil, fmt.Errorf("geth answered %s: %s", resp.Status, b)
	}
	return bytes.TrimSpace(b), nil
}

// stripBaseFee removes baseFeePerGas from a block in an answer; anything else is kept as geth sent it.
func stripBaseFee(answer json.RawMessage) json.RawMessage {
	var resp map[string]json.RawMessage
	if json.Unmarshal(answer, &resp) != nil {
		return answer
	}
	var block map[string]json.RawMessage
	if json.Unmarshal(resp["result"], &block) != nil || block == nil {
		return answer
	}
	delete(block, "baseFeePerGas")
	resp["result"] = mustJSON(block)
	return mustJSON(resp)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func writeJSON(w http.ResponseWriter, v any) { w.Write(mustJSON(v)) }
