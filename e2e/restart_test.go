package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// process is the seald binary running as a child process, so that it can be killed with SIGKILL.
type process struct {
	cmd *exec.Cmd
	in  *instance
}

func startProcess(t *testing.T, bin, dataDir string, env []string, args ...string) *process {
	t.Helper()
	all := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir, "--chain-rpc-addr", "",
		"--rate-limit", "0", "--batch-wait", "100ms", "--log-level", "warn"}, args...)
	cmd := exec.Command(bin, all...)
	cmd.Env = append(os.Environ(), env...)
	stdout, _ := cmd.StdoutPipe()
	p := &process{cmd: cmd, in: &instance{t: t, DataDir: dataDir}}
	cmd.Stderr = &lockedWriter{in: p.in}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		re := regexp.MustCompile(`listening on (https?://\S+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case p.in.URL = <-found:
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("seald did not start\n%s", p.in.logText())
	}
	var creds map[string]string
	b, _ := os.ReadFile(filepath.Join(dataDir, "credentials.json"))
	_ = json.Unmarshal(b, &creds)
	p.in.Sub, p.in.API = creds["subscription_key"], creds["api_key"]
	t.Cleanup(func() { p.kill() })
	return p
}

func (p *process) kill() {
	if p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		_ = p.cmd.Wait()
	}
}

// terminate stops the process with SIGTERM and waits for its graceful exit.
func (p *process) terminate(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("seald exited with %v after SIGTERM\n%s", err, p.in.logText())
		}
	case <-time.After(30 * time.Second):
		t.Error("seald did not exit within 30 s of SIGTERM")
		p.kill()
	}
}

// TestRestartAndKill9KeepTokens seals records, stops the binary gracefully and then with kill -9 in the
// middle of new work, and checks after each start that every token stays verifiable, that every accepted
// record completes, and that no token is given twice.
func TestRestartAndKill9KeepTokens(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "")
	dir := t.TempDir()
	p := startProcess(t, bin, dir, nil)
	var refs []string
	seal := func(in *instance, n int) {
		for i := range n {
			r := in.post(authPath, map[string]any{"data": map[string]any{"n": len(refs), "i": i}, "to": "a@example.com"})
			if r.Status != 201 {
				t.Fatalf("seal: %d %s", r.Status, r.Raw)
			}
			refs = append(refs, str(r.Body, "data.reference"))
		}
	}
	checkAll := func(in *instance) {
		t.Helper()
		tokens := map[string]string{}
		for _, ref := range refs {
			rec := in.waitState(ref, "COMPLETED", 90*time.Second)
			tok := str(rec, "token_id")
			if other, dup := tokens[tok]; dup {
				t.Fatalf("token %s given to %s and %s", tok, other, ref)
			}
			tokens[tok] = ref
			v := in.get(verifyBase + "token-id?token_id=" + tok + "&blockchain=POLYGON")
			if v.Status != 200 || str(v.Body, "data.details.reference") != ref {
				t.Fatalf("token %s: %d %s", tok, v.Status, v.Raw)
			}
		}
	}
	seal(p.in, 5)
	checkAll(p.in)
	p.terminate(t)

	p = startProcess(t, bin, dir, nil)
	checkAll(p.in)
	seal(p.in, 20)
	time.Sleep(150 * time.Millisecond) // some of them in flight: stored, batched, sent
	p.kill()

	p = startProcess(t, bin, dir, nil)
	checkAll(p.in)
	seal(p.in, 3)
	checkAll(p.in)
}

// TestEmptyEnvironmentTurnsOff runs the real binary with SEALD_CHAIN_RPC_ADDR set to "": the embedded
// chain serves no JSON-RPC, as the README says, instead of falling back to the default address.
func TestEmptyEnvironmentTurnsOff(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "")
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--log-level", "info")
	cmd.Env = append(os.Environ(), "SEALD_CHAIN_RPC_ADDR=")
	stdout, _ := cmd.StdoutPipe()
	var logs lockedBuffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	up := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on") {
				up <- true
			}
		}
	}()
	select {
	case <-up:
	case <-time.After(90 * time.Second):
		t.Fatalf("seald did not start\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "embedded chain JSON-RPC") {
		t.Errorf("SEALD_CHAIN_RPC_ADDR= still served the chain's JSON-RPC:\n%s", logs.String())
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
