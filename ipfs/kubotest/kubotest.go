// Package kubotest runs a real Kubo daemon for tests: a fresh repository in a temporary directory, offline,
// listening on loopback ports only. Tests of the Kubo adapter and of the whole service use it instead of a
// fake, and outage tests stop the daemon and bring it back on the same ports.
//
// The binary comes from SEALD_TEST_KUBO, which `eval "$(scripts/peers.sh kubo)"` sets after building the Kubo
// version pinned in tools/kubo. Without it Start skips the test.
package kubotest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvVar names the environment variable holding the path of the ipfs binary.
const EnvVar = "SEALD_TEST_KUBO"

// Waits for a daemon that hangs; generous because two cores are shared by parallel test binaries. They bound
// how long a broken daemon can stall a run and assert nothing about speed.
const (
	readyTimeout = 2 * time.Minute
	stopTimeout  = 30 * time.Second
)

// Daemon is one running (or stopped) Kubo daemon and its repository.
type Daemon struct {
	// Bin is the ipfs binary, Path the repository (IPFS_PATH).
	Bin, Path string
	// APIURL is the RPC API's base URL (http://127.0.0.1:port); GatewayURL the node's own HTTP gateway. Both
	// stay the same across Stop and Restart.
	APIURL, GatewayURL string

	t    testing.TB
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
	out  *lockedBuffer
}

// Option changes the repository's configuration before the first start.
type Option func(cfg map[string]any) error

// Config sets a configuration key (dotted, as `ipfs config` takes it) to a JSON value, e.g.
// Config("Import.UnixFSChunker", `"size-1048576"`). Tests use it to give a node settings that differ from
// seald's fixed import parameters.
func Config(key, jsonValue string) Option {
	return func(cfg map[string]any) error {
		var v any
		if err := json.Unmarshal([]byte(jsonValue), &v); err != nil {
			return fmt.Errorf("config %s: %w", key, err)
		}
		return setKey(cfg, key, v)
	}
}

// Start initialises a repository with `ipfs init --profile test`, puts the API and gateway on free loopback
// ports, starts `ipfs daemon --offline` and returns once the API answers. The daemon is stopped when the test
// ends. It skips the test when SEALD_TEST_KUBO is unset.
func Start(t testing.TB, opts ...Option) *Daemon {
	t.Helper()
	bin := os.Getenv(EnvVar)
	if bin == "" {
		t.Skipf("%s is not set: run `eval \"$(scripts/peers.sh kubo)\"` to build Kubo and run the Kubo tests", EnvVar)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s=%s: %v", EnvVar, bin, err)
	}
	d := &Daemon{Bin: bin, Path: t.TempDir(), t: t, out: &lockedBuffer{}}
	if out, err := d.Run("init", "--profile", "test", "--empty-repo"); err != nil {
		t.Fatalf("ipfs init: %v\n%s", err, out)
	}
	ports := freePorts(t, 2)
	apiPort, gwPort := ports[0], ports[1]
	d.APIURL = "http://127.0.0.1:" + strconv.Itoa(apiPort)
	d.GatewayURL = "http://127.0.0.1:" + strconv.Itoa(gwPort)
	base := []Option{
		Config("Addresses.API", strconv.Quote(fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", apiPort))),
		Config("Addresses.Gateway", strconv.Quote(fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", gwPort))),
		Config("Addresses.Swarm", `["/ip4/127.0.0.1/tcp/0"]`),
	}
	if err := d.editConfig(append(base, opts...)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		d.Stop()
		if t.Failed() {
			t.Logf("kubo daemon output:\n%s", d.out.String())
		}
	})
	d.start()
	return d
}

// Run runs the ipfs command line on the daemon's repository. While the daemon runs, the command goes through
// its API, as a user's `ipfs add` would. It returns standard output; on failure the error includes stderr.
func (d *Daemon) Run(args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(d.Bin, args...)
	cmd.Env = d.env()
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("ipfs %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes(), nil
}

// Stop shuts the daemon down (SIGINT, then SIGKILL if it does not exit) and waits for it. The repository and
// ports are kept for Restart. Stopping a stopped daemon does nothing.
func (d *Daemon) Stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cmd == nil {
		return
	}
	d.cmd.Process.Signal(os.Interrupt)
	select {
	case <-d.done:
	case <-time.After(stopTimeout):
		d.cmd.Process.Kill()
		<-d.done
	}
	d.cmd = nil
}

// Restart starts a stopped daemon again on the same repository and ports, and waits for its API.
func (d *Daemon) Restart() {
	d.t.Helper()
	d.Stop()
	d.start()
}

func (d *Daemon) start() {
	d.t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	cmd := exec.Command(d.Bin, "daemon", "--offline")
	cmd.Env = d.env()
	cmd.Stdout, cmd.Stderr = d.out, d.out
	if err := cmd.Start(); err != nil {
		d.t.Fatalf("ipfs daemon: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	d.cmd, d.done = cmd, done
	if err := d.waitReady(done); err != nil {
		cmd.Process.Kill()
		<-done
		d.cmd = nil
		d.t.Fatalf("ipfs daemon: %v\n%s", err, d.out.String())
	}
}

// waitReady polls the API until it answers, the daemon exits, or readyTimeout passes.
func (d *Daemon) waitReady(done <-chan struct{}) error {
	deadline := time.Now().Add(readyTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, d.APIURL+"/api/v0/version", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				cancel()
				return nil
			}
			err = errors.New(resp.Status)
		}
		cancel()
		select {
		case <-done:
			return errors.New("exited before its API answered")
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("API at %s not answering after %s: %v", d.APIURL, readyTimeout, err)
		}
	}
}

func (d *Daemon) env() []string {
	return append(os.Environ(), "IPFS_PATH="+d.Path, "IPFS_TELEMETRY=off")
}

// editConfig applies opts to the repository's config file while no daemon runs.
func (d *Daemon) editConfig(opts []Option) error {
	p := filepath.Join(d.Path, "config")
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	for _, o := range opts {
		if err := o(cfg); err != nil {
			return err
		}
	}
	b, err = json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o600)
}

// setKey sets a dotted key in a decoded JSON object, creating intermediate objects.
func setKey(cfg map[string]any, key string, v any) error {
	parts := strings.Split(key, ".")
	m := cfg
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			if m[p] != nil {
				return fmt.Errorf("config %s: %s is not an object", key, p)
			}
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
	return nil
}

// freePorts asks the kernel for n distinct free loopback ports: each listener stays open until all are
// chosen, so the kernel cannot hand out the same port twice (asked one at a time, closing each before the next,
// it once gave the API and the gateway the same port, and the daemon failed to bind its gateway). Another
// process could still take one before the daemon binds it; on loopback in a test run that is rare, and the
// daemon then fails to start loudly.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports
}

// lockedBuffer collects the daemon's output from its two streams.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
