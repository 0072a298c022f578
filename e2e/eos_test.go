package e2e

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"seald.dev/seald/evm/eosevmtest"
	"seald.dev/seald/evm/gethtest"
)

const eosAuthPath = "/svc-data/data/authentication/ipfs/sm-eos/email"

// gethKeyFile writes a geth node's funded key where seald reads it.
func gethKeyFile(t *testing.T, g *gethtest.Geth) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chain.key")
	if err := os.WriteFile(path, []byte(hex.EncodeToString(crypto.FromECDSA(g.Key))), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// runBinary runs the seald binary with args and returns its combined output and exit code.
func runBinary(t *testing.T, bin string, env []string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, out)
	}
	return string(out), 0
}

// TestEOSOnEOSEVMStandIn runs the seald binary with EOS on the EOS EVM stand-in (geth under the testnet's
// chain id behind a proxy that has no base fee, no type-2 transactions, no filters, subscriptions or
// eth_getProof, and a fixed gas price) and POLYGON on its own geth beside it: an EOS seal completes with a
// token id anchored by a legacy transaction at the governed price after 2 confirmations, verifies by token
// id with blockchain=EOS, is named by its chain id on the page, in the CLI and in the proof bundle, verifies
// with `seald proof verify` against the stand-in, is revoked on chain; records sealed before a kill -9
// complete after the restart; and seald never asked the stand-in for anything EOS EVM lacks.
func TestEOSOnEOSEVMStandIn(t *testing.T) {
	t.Parallel() // it starts its own serve (and chain, browser) and mostly waits on them
	bin := buildBinary(t, "")
	polygon := gethtest.Start(t, gethtest.Options{})
	eosGeth := gethtest.Start(t, gethtest.Options{ChainID: 15557, Period: 1})
	eos := eosevmtest.Start(t, eosGeth, nil)
	dir := t.TempDir()
	args := []string{"--chain", polygon.URL, "--chain-key-file", gethKeyFile(t, polygon),
		"--eos-chain", eos.URL, "--eos-key-file", gethKeyFile(t, eosGeth), "--eos-chain-id", "15557",
		"--eos-explorer-url", "https://explorer.testnet.evm.eosnetwork.com"}
	// EOS's confirmations come from the environment, as an operator's unit file would give them.
	env := []string{"SEALD_EOS_CONFIRMATIONS=2"}
	p := startProcess(t, bin, dir, env, args...)
	in := p.in
	in.httpClient()
	const chainName = "EOS EVM testnet (15557)"

	r := in.post(eosAuthPath, map[string]any{"data": map[string]any{"on": "eos evm"}, "to": "a@example.com"})
	if r.Status != 201 {
		t.Fatalf("seal on EOS: %d %s", r.Status, r.Raw)
	}
	eosRef := str(r.Body, "data.reference")
	r = in.post(authPath, map[string]any{"data": map[string]any{"on": "polygon"}, "to": "a@example.com"})
	polyRef := str(r.Body, "data.reference")
	eosRec := in.waitState(eosRef, "COMPLETED", 2*time.Minute)
	polyRec := in.waitState(polyRef, "COMPLETED", 2*time.Minute)
	eosToken := str(eosRec, "token_id")
	if eosToken == "" || str(eosRec, "blockchain_network") != "EOS" {
		t.Fatalf("EOS record: %v", eosRec)
	}

	t.Run("verify by token id with blockchain=EOS", func(t *testing.T) {
		v := in.get(verifyBase + "token-id?token_id=" + eosToken + "&blockchain=EOS")
		if v.Status != 200 || str(v.Body, "data.details.reference") != eosRef || str(v.Body, "data.blockchain.chain_name") != chainName {
			t.Errorf("token %s on EOS: %d %s", eosToken, v.Status, v.Raw)
		}
		v = in.get(verifyBase + "token-id?token_id=" + str(polyRec, "token_id") + "&blockchain=POLYGON")
		if v.Status != 200 || str(v.Body, "data.details.reference") != polyRef {
			t.Errorf("the POLYGON record beside it: %d %s", v.Status, v.Raw)
		}
	})

	proof := in.get(verifyBase + "reference?reference=" + eosRef + "&proof=1")
	if proof.Status != 200 || str(proof.Body, "data.proof.chain_id") != "15557" || str(proof.Body, "data.proof.chain_name") != chainName {
		t.Fatalf("EOS proof bundle: %d %s", proof.Status, proof.Raw)
	}

	t.Run("the anchor is a legacy transaction at the governed price, with its confirmations", func(t *testing.T) {
		c := eosGeth.Client()
		defer c.Close()
		hash := common.HexToHash(str(proof.Body, "data.proof.tx_hash"))
		tx, _, err := c.TransactionByHash(t.Context(), hash)
		if err != nil {
			t.Fatal(err)
		}
		if tx.Type() != types.LegacyTxType || tx.GasPrice().Cmp(eosevmtest.DefaultGasPrice) != 0 || tx.ChainId().Uint64() != 15557 {
			t.Errorf("anchor %s: type %d at %s wei on chain %s", hash.Hex(), tx.Type(), tx.GasPrice(), tx.ChainId())
		}
		rc, err := c.TransactionReceipt(t.Context(), hash)
		if err != nil {
			t.Fatal(err)
		}
		// COMPLETED came after 2 blocks followed the anchor's: the chain is at least that long now.
		if head, err := c.BlockNumber(t.Context()); err != nil || head < rc.BlockNumber.Uint64()+2 {
			t.Errorf("head %d, anchor in block %s: fewer than 2 confirmations (%v)", head, rc.BlockNumber, err)
		}
	})

	t.Run("page and CLI name EOS EVM by its chain id", func(t *testing.T) {
		code, page := fetch(t, in.URL+"/v/"+eosRef)
		if code != 200 || !strings.Contains(string(page), chainName) || !strings.Contains(string(page), "https://explorer.testnet.evm.eosnetwork.com/tx/") {
			t.Errorf("page: %d, no %q or explorer link", code, chainName)
		}
		out, code := runBinary(t, bin, nil, "verify", "--token-id", eosToken, "--network", "EOS", "--url", in.URL,
			"--subscription-key", in.Sub, "--api-key", in.API)
		if code != 0 || !strings.Contains(out, chainName) {
			t.Errorf("seald verify --network EOS: exit %d\n%s", code, out)
		}
	})

	bundle := writeTemp(t, "proof.json", proof.Raw)
	trust := in.URL + "/.well-known/seald-trust.json"
	pins := []string{"SEALD_TRUST_PIN_DIR=" + t.TempDir()} // not the user's own pins
	t.Run("proof verify against the stand-in", func(t *testing.T) {
		out, code := runBinary(t, bin, pins, "proof", "verify", bundle, "--rpc", eos.URL, "--trust", trust)
		if code != 0 || !strings.HasPrefix(out, "ok:") || !strings.Contains(out, chainName) {
			t.Errorf("exit %d\n%s", code, out)
		}
		// The verifier that shares no code with seald (Node and ethers) checks it through the stand-in too.
		code, doc := fetch(t, trust)
		if code != 200 {
			t.Fatalf("trust root: %d", code)
		}
		if code, out := independent(t, bundle, "--rpc", eos.URL, "--trust", writeTemp(t, "trust.json", doc)); code != 0 {
			t.Errorf("the independent verifier through the stand-in: exit %d %s", code, out)
		}
		// The POLYGON node does not hold this proof.
		if out, code := runBinary(t, bin, pins, "proof", "verify", bundle, "--rpc", polygon.URL, "--trust", trust); code != exitInvalid {
			t.Errorf("against the POLYGON chain: exit %d\n%s", code, out)
		}
	})

	t.Run("revoke on chain", func(t *testing.T) {
		r := in.callWith("PUT", "/authentication-status/update/status", nil, map[string]any{"reference": eosRef, "status": "REVOKED", "reason": "issued in error"})
		if r.Status != 200 {
			t.Fatalf("revoke: %d %s", r.Status, r.Raw)
		}
		deadline := time.Now().Add(2 * time.Minute)
		for field(in.get(verifyBase+"reference?reference="+eosRef).Body, "data.blockchain.revoked_on_chain") != true {
			if time.Now().After(deadline) {
				t.Fatalf("never revoked on chain\n%s", in.logText())
			}
			time.Sleep(100 * time.Millisecond)
		}
		if out, code := runBinary(t, bin, pins, "proof", "verify", bundle, "--rpc", eos.URL, "--trust", trust); code != exitRevoked || !strings.Contains(out, "REVOKED") {
			t.Errorf("proof verify of the revoked token: exit %d\n%s", code, out)
		}
	})

	t.Run("kill -9 and restart", func(t *testing.T) {
		var refs []string
		for i := range 4 {
			r := in.post(eosAuthPath, map[string]any{"data": map[string]any{"before": "kill", "i": i}, "to": "a@example.com"})
			if r.Status != 201 {
				t.Fatalf("seal: %d %s", r.Status, r.Raw)
			}
			refs = append(refs, str(r.Body, "data.reference"))
		}
		p.kill()
		p = startProcess(t, bin, dir, env, args...)
		in := p.in
		in.httpClient()
		owner := map[string]string{eosToken: eosRef}
		for i := range 3 {
			r := in.post(eosAuthPath, map[string]any{"data": map[string]any{"after": "restart", "i": i}, "to": "a@example.com"})
			refs = append(refs, str(r.Body, "data.reference"))
		}
		for _, ref := range refs {
			rec := in.waitState(ref, "COMPLETED", 3*time.Minute)
			tok := str(rec, "token_id")
			if other, dup := owner[tok]; dup || tok == "" {
				t.Fatalf("%s: token %q (also %s)", ref, tok, other)
			}
			owner[tok] = ref
			v := in.get(verifyBase + "token-id?token_id=" + tok + "&blockchain=EOS")
			if v.Status != 200 || str(v.Body, "data.details.reference") != ref {
				t.Errorf("token %s: %d %s", tok, v.Status, v.Raw)
			}
		}
	})

	if refused := eos.Refused(); len(refused) != 0 {
		t.Errorf("seald asked EOS EVM for what it does not have: %v", refused)
	}
	calls := eos.Calls()
	if calls["eth_sendRawTransaction"] == 0 || calls["eth_gasPrice"] == 0 {
		t.Errorf("the stand-in saw no transactions: %v", calls)
	}
	t.Logf("JSON-RPC methods seald used on EOS EVM: %v", calls)
}

// TestEOSChainRefusedAtStart: serve refuses to start, naming the flag, when --eos-chain is no EVM
// JSON-RPC endpoint, when it serves another chain id than --eos-chain-id, and when a transaction setting is
// not one it knows.
func TestEOSChainRefusedAtStart(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "")
	g := gethtest.Start(t, gethtest.Options{ChainID: 15557})
	eos := eosevmtest.Start(t, g, nil)
	key := gethKeyFile(t, g)
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>not a node</body></html>")
	}))
	defer web.Close()
	for _, c := range []struct {
		name string
		env  []string
		args []string
		want []string
	}{
		{"a web page", nil, []string{"--eos-chain", web.URL, "--eos-key-file", key}, []string{"--eos-chain", "not an EVM JSON-RPC endpoint"}},
		{"nothing listening", nil, []string{"--eos-chain", "http://" + freePort(t), "--eos-key-file", key}, []string{"--eos-chain", "not an EVM JSON-RPC endpoint"}},
		{"not a URL", nil, []string{"--eos-chain", "eos.example:8545", "--eos-key-file", key}, []string{"--eos-chain", "not an EVM JSON-RPC endpoint"}},
		{"the testnet where mainnet is configured", nil, []string{"--eos-chain", eos.URL, "--eos-key-file", key},
			[]string{"--eos-chain serves chain id 15557", "--eos-chain-id", "17777"}},
		{"the chain id from the environment", []string{"SEALD_EOS_CHAIN=" + eos.URL, "SEALD_EOS_KEY_FILE=" + key, "SEALD_EOS_CHAIN_ID=17777"}, nil,
			[]string{"--eos-chain serves chain id 15557", "--eos-chain-id"}},
		{"an unknown transaction type", nil, []string{"--eos-chain", eos.URL, "--eos-key-file", key, "--eos-chain-id", "15557", "--eos-tx-type", "eip1559"},
			[]string{"--eos-tx-type", "eip1559"}},
		{"a ceiling that is no amount", nil, []string{"--eos-chain", eos.URL, "--eos-key-file", key, "--eos-chain-id", "15557", "--eos-gas-price-ceiling", "lots"},
			[]string{"--eos-gas-price-ceiling", "lots"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--chain-rpc-addr", ""}, c.args...)
			out, code := runBinary(t, bin, c.env, args...)
			if code == 0 || strings.Contains(out, "listening on") {
				t.Fatalf("serve started: exit %d\n%s", code, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("the refusal does not say %q:\n%s", w, out)
				}
			}
		})
	}
	if sent := eos.Calls()["eth_sendRawTransaction"]; sent != 0 {
		t.Errorf("a refused start sent %d transactions", sent)
	}
}
