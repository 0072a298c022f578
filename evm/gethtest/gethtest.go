// Package gethtest runs a real `geth --dev` node on loopback for integration tests: the binary built by
// scripts/peers.sh from tools/geth (pinned go-ethereum), found through SEALD_TEST_GETH. The chain runs
// Polygon's fork rules (evm.PragueConfig) from a genesis that funds a fresh test key, in a temporary data
// directory. Tests call Start, and Stop, Kill and Restart to play outages.
package gethtest

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald/evm"
)

// EnvVar names the environment variable holding the geth binary's path.
const EnvVar = "SEALD_TEST_GETH"

// Options configure the node.
type Options struct {
	// ChainID of the chain; 0 means evm.DefaultChainID.
	ChainID uint64
	// Period is --dev.period: seconds between blocks. 0 seals a block whenever a transaction arrives; a
	// period is needed to leave a transaction pending (a stuck one stays unmined, with no busy sealing).
	Period uint64
	// MinerTip is --miner.gasprice, the lowest priority fee (wei) the node puts in a block; nil keeps dev
	// mode's 1 wei. Transactions tipping less stay in the pool: the way to get a stuck transaction.
	MinerTip *big.Int
	// Debug serves the debug API over HTTP too, for tests that rewind the chain (debug_setHead).
	Debug bool
	// CORS lets web pages of any origin call the node (--http.corsdomain '*'), as public endpoints do, for
	// the browser tests of the in-browser proof check.
	CORS bool
}

// Geth is a running (or stopped) geth node.
type Geth struct {
	// URL is the node's HTTP JSON-RPC endpoint. It stays the same across Restart.
	URL string
	// Key is funded in genesis; it is the key tests sign with.
	Key *ecdsa.PrivateKey
	// Address is Key's account.
	Address common.Address
	// ChainID is the chain's EIP-155 id.
	ChainID *big.Int
	// DataDir holds the chain; it outlives Stop and Kill, so Restart resumes the same chain.
	DataDir string

	t    testing.TB
	bin  string
	opts Options
	port int

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	logs []string // the node's last log lines, shown when a test fails
}

// Start initialises a chain in a temporary directory and starts geth on it, skipping the test when
// SEALD_TEST_GETH is unset. The node is stopped when the test ends.
func Start(t testing.TB, opts Options) *Geth {
	t.Helper()
	bin := os.Getenv(EnvVar)
	if bin == "" {
		t.Skipf("%s is not set: run `eval $(scripts/peers.sh geth)` to build geth and run the geth integration tests", EnvVar)
	}
	if opts.ChainID == 0 {
		opts.ChainID = evm.DefaultChainID
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	g := &Geth{Key: key, Address: crypto.PubkeyToAddress(key.PublicKey), ChainID: new(big.Int).SetUint64(opts.ChainID),
		DataDir: filepath.Join(dir, "data"), t: t, bin: bin, opts: opts}

	genesis, err := json.Marshal(evm.Genesis(g.ChainID, g.Address))
	if err != nil {
		t.Fatal(err)
	}
	genesisPath := filepath.Join(dir, "genesis.json")
	if err := os.WriteFile(genesisPath, genesis, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "--datadir", g.DataDir, "init", genesisPath).CombinedOutput(); err != nil {
		t.Fatalf("geth init: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			g.mu.Lock()
			t.Logf("geth log (last %d lines):\n%s", len(g.logs), strings.Join(g.logs, "\n"))
			g.mu.Unlock()
		}
		g.Stop()
	})
	g.start()
	return g
}

var endpointRE = regexp.MustCompile(`HTTP server started\s+endpoint=(\S+)\s+auth=false`)

// start runs geth on the data directory and waits until its RPC answers.
func (g *Geth) start() {
	g.t.Helper()
	args := []string{
		"--dev", "--dev.period", strconv.FormatUint(g.opts.Period, 10),
		"--datadir", g.DataDir,
		"--http", "--http.addr", "127.0.0.1", "--http.port", strconv.Itoa(g.port), "--http.api", "eth,net,web3",
		"--nodiscover", "--maxpeers", "0", "--port", "0", "--authrpc.port", "0", "--ipcdisable",
		"--networkid", g.ChainID.String(), "--verbosity", "3",
	}
	if g.opts.Debug {
		for i, a := range args {
			if a == "eth,net,web3" {
				args[i] = "eth,net,web3,debug"
			}
		}
	}
	if g.opts.CORS {
		args = append(args, "--http.corsdomain", "*")
	}
	if g.opts.MinerTip != nil {
		args = append(args, "--miner.gasprice", g.opts.MinerTip.String())
	}
	cmd := exec.Command(g.bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		g.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		g.t.Fatalf("start geth: %v", err)
	}
	done := make(chan struct{})
	endpoint := make(chan string, 1)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			g.mu.Lock()
			g.logs = append(g.logs, line)
			if len(g.logs) > 200 {
				g.logs = g.logs[len(g.logs)-200:]
			}
			g.mu.Unlock()
			if m := endpointRE.FindStringSubmatch(line); m != nil {
				select {
				case endpoint <- m[1]:
				default:
				}
			}
		}
		cmd.Wait()
	}()
	g.mu.Lock()
	g.cmd, g.done = cmd, done
	g.mu.Unlock()

	select {
	case ep := <-endpoint:
		g.URL = "http://" + ep
		if i := strings.LastIndex(ep, ":"); i >= 0 {
			g.port, _ = strconv.Atoi(ep[i+1:])
		}
	case <-done:
		g.t.Fatalf("geth exited before serving RPC")
	case <-time.After(time.Minute):
		g.t.Fatalf("geth did not start serving RPC within a minute")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := g.Client()
	defer c.Close()
	for {
		id, err := c.ChainID(ctx)
		if err == nil {
			if id.Cmp(g.ChainID) != 0 {
				g.t.Fatalf("geth serves chain %s, want %s", id, g.ChainID)
			}
			return
		}
		select {
		case <-ctx.Done():
			g.t.Fatalf("geth RPC not answering: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Client dials the node's RPC; the caller closes it.
func (g *Geth) Client() *ethclient.Client {
	g.t.Helper()
	c, err := ethclient.Dial(g.URL)
	if err != nil {
		g.t.Fatal(err)
	}
	return c
}

// Stop shuts geth down gracefully (SIGINT) and waits for it; the chain stays in DataDir. Stopping a
// stopped node does nothing.
func (g *Geth) Stop() { g.halt(syscall.SIGINT) }

// Kill stops geth with SIGKILL, as a crash would: the node may lose its latest blocks.
func (g *Geth) Kill() { g.halt(syscall.SIGKILL) }

func (g *Geth) halt(sig syscall.Signal) {
	g.mu.Lock()
	cmd, done := g.cmd, g.done
	g.cmd = nil
	g.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// Restart stops geth if it runs and starts it again on the same data directory and RPC port.
func (g *Geth) Restart() {
	g.t.Helper()
	g.Stop()
	g.start()
}

// String names the node for messages.
func (g *Geth) String() string { return fmt.Sprintf("geth %s (chain %s)", g.URL, g.ChainID) }
