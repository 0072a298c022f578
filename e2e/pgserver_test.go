package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// pgBin holds PostgreSQL's server programs (Debian's postgresql-15 package).
const pgBin = "/usr/lib/postgresql/15/bin"

// pgServer is a private PostgreSQL server in a temporary directory, on a free loopback port, that a test may
// stop and start at will; the shared server on 5432 is never touched. PostgreSQL refuses to run as root, so
// its programs run as the postgres OS user when the test runs as root.
type pgServer struct {
	t    *testing.T
	dir  string
	Port int
	DSN  string
}

func startPG(t *testing.T) *pgServer {
	t.Helper()
	if _, err := os.Stat(filepath.Join(pgBin, "pg_ctl")); err != nil {
		t.Fatalf("PostgreSQL server programs not found in %s: %v", pgBin, err)
	}
	dir, err := os.MkdirTemp("", "seald-pg-")
	if err != nil {
		t.Fatal(err)
	}
	// The postgres user must reach and own its directory.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &pgServer{t: t, dir: dir, Port: freeLoopbackPort(t)}
	s.DSN = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.Port)
	if os.Geteuid() == 0 {
		if out, err := exec.Command("chown", "postgres:postgres", dir).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	t.Cleanup(func() {
		_ = s.ctl("stop", "-m", "immediate")
		os.RemoveAll(dir)
	})
	if out, err := s.run("initdb", "-D", s.data(), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	s.Start()
	return s
}

func (s *pgServer) data() string { return filepath.Join(s.dir, "data") }

// run runs one of PostgreSQL's programs, as the postgres user when this process is root.
func (s *pgServer) run(prog string, args ...string) ([]byte, error) {
	path := filepath.Join(pgBin, prog)
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = s.dir
	return cmd.CombinedOutput()
}

func (s *pgServer) ctl(action string, args ...string) error {
	all := append([]string{action, "-D", s.data(), "-w", "-t", "60", "-l", filepath.Join(s.dir, "log"),
		"-o", fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", s.Port, s.dir)}, args...)
	out, err := s.run("pg_ctl", all...)
	if err != nil {
		return fmt.Errorf("pg_ctl %s: %v\n%s", action, err, out)
	}
	return nil
}

// Start starts the server and waits until it accepts connections.
func (s *pgServer) Start() {
	s.t.Helper()
	if err := s.ctl("start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		s.t.Fatalf("%v\n%s", err, log)
	}
}

// Stop shuts the server down fast: sessions are ended, open transactions rolled back.
func (s *pgServer) Stop() {
	s.t.Helper()
	if err := s.ctl("stop", "-m", "fast"); err != nil {
		s.t.Fatal(err)
	}
}

// freeLoopbackPort returns a port that was free on 127.0.0.1 a moment ago.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// until polls cond every 50 ms until it holds or timeout passes, and reports whether it held.
func until(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}
