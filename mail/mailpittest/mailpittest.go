// Package mailpittest runs a real mailpit SMTP server for tests: built from its Go module at the version pinned
// in tools/mailpit by scripts/peers.sh, started on free loopback ports with its database in a temporary
// directory, and read back through its HTTP API. Package mail's integration tests use it, and so can the
// end-to-end and outage tests of the service (Stop and Restart keep the ports and the stored messages).
//
// Start skips the test when SEALD_TEST_MAILPIT is unset; CI always sets it:
//
//	eval "$(scripts/peers.sh mailpit)"
package mailpittest

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// EnvVar names the mailpit binary.
const EnvVar = "SEALD_TEST_MAILPIT"

// Username and Password are what SMTPURL authenticates with. The server accepts any credentials (and none), so
// they only prove that AUTH took place: each message records the user name (Message.Username).
const (
	Username = "seald"
	Password = "s3cret pass"
)

// startWait bounds how long a starting mailpit may take to answer before the test fails. It is a guard
// against a hung program, not an assertion about speed.
const startWait = 60 * time.Second

// Server is one running mailpit.
type Server struct {
	// SMTPURL submits over TLS with credentials: smtp://seald:...@127.0.0.1:port?tls=required (STARTTLS), or
	// smtps://... with WithImplicitTLS. The certificate is Cert's: clients must trust Cert.Roots.
	SMTPURL string
	// PlainURL submits without TLS or credentials (smtp://127.0.0.1:port?tls=none), for a client that cannot
	// be given Cert.Roots, such as the seald binary run end to end. Empty with WithImplicitTLS.
	PlainURL string
	// SMTPAddr is the SMTP listener's host:port.
	SMTPAddr string
	// APIURL is the base of the HTTP API and web UI, without a trailing slash.
	APIURL string
	// Cert is the server's certificate.
	Cert *Cert

	t       testing.TB
	bin     string
	args    []string
	logPath string
	http    *http.Client

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// Option changes how Start runs mailpit.
type Option func(*config)

type config struct {
	implicitTLS bool
	chaos       bool
}

// WithImplicitTLS makes the SMTP listener TLS from the first byte (smtps), instead of offering STARTTLS.
func WithImplicitTLS() Option { return func(c *config) { c.implicitTLS = true } }

// WithChaos enables mailpit's fault injection, driven by SetChaos.
func WithChaos() Option { return func(c *config) { c.chaos = true } }

// Start runs mailpit on free loopback ports, with STARTTLS offered (not required) on a fresh certificate and
// any credentials accepted, and stops it when the test ends. It skips the test when SEALD_TEST_MAILPIT is
// unset.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	bin := os.Getenv(EnvVar)
	if bin == "" {
		t.Skipf("%s is not set: build mailpit with `eval \"$(scripts/peers.sh mailpit)\"` to run this test", EnvVar)
	}
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	dir := t.TempDir()
	s := &Server{
		Cert:    NewCert(t),
		t:       t,
		bin:     bin,
		logPath: filepath.Join(dir, "mailpit.log"),
		http:    &http.Client{Timeout: 30 * time.Second},
	}
	t.Cleanup(s.Stop)

	// A free port can be taken between finding and binding it; try again with others when that happens.
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		smtpPort, apiPort := freePort(t), freePort(t)
		s.SMTPAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(smtpPort))
		s.APIURL = "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(apiPort))
		s.args = []string{
			"--smtp", s.SMTPAddr,
			"--listen", strings.TrimPrefix(s.APIURL, "http://"),
			"--database", filepath.Join(dir, "mailpit.db"),
			"--smtp-tls-cert", s.Cert.CertFile,
			"--smtp-tls-key", s.Cert.KeyFile,
			"--smtp-auth-accept-any",
			"--smtp-disable-rdns",
			"--disable-version-check",
			"--max", "0", // keep every message: tests count them all (mailpit prunes past 500 by default)
		}
		if cfg.implicitTLS {
			s.args = append(s.args, "--smtp-require-tls")
		} else {
			// PlainURL may authenticate in clear on loopback (mailpit refuses the flag with implicit TLS).
			s.args = append(s.args, "--smtp-auth-allow-insecure")
		}
		if cfg.chaos {
			s.args = append(s.args, "--enable-chaos")
		}
		if lastErr = s.start(); lastErr == nil {
			break
		}
		if !strings.Contains(lastErr.Error(), "address already in use") {
			break
		}
	}
	if lastErr != nil {
		t.Fatalf("mailpittest: %v", lastErr)
	}

	user := url.UserPassword(Username, Password)
	if cfg.implicitTLS {
		s.SMTPURL = (&url.URL{Scheme: "smtps", User: user, Host: s.SMTPAddr}).String()
	} else {
		s.SMTPURL = (&url.URL{Scheme: "smtp", User: user, Host: s.SMTPAddr, RawQuery: "tls=required"}).String()
		s.PlainURL = "smtp://" + s.SMTPAddr + "?tls=none"
	}
	return s
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TLSConfig returns a client configuration that trusts the server's certificate.
func (s *Server) TLSConfig() *tls.Config { return s.Cert.ClientConfig() }

// start runs the program and waits until both listeners answer.
func (s *Server) start() error {
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close() // the child has its own copy of the descriptor
	cmd := exec.Command(s.bin, s.args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()

	deadline := time.Now().Add(startWait)
	for {
		select {
		case <-done:
			return fmt.Errorf("mailpit exited while starting: %s", s.log())
		default:
		}
		if s.ready() {
			return nil
		}
		if time.Now().After(deadline) {
			s.Stop()
			return fmt.Errorf("mailpit did not answer within %v: %s", startWait, s.log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *Server) ready() bool {
	c, err := net.DialTimeout("tcp", s.SMTPAddr, time.Second)
	if err != nil {
		return false
	}
	_ = c.Close()
	resp, err := s.http.Get(s.APIURL + "/readyz")
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// log returns what mailpit has written so far, for failure messages.
func (s *Server) log() string {
	b, _ := os.ReadFile(s.logPath)
	return strings.TrimSpace(string(b))
}

// Stop ends mailpit (SIGTERM, then SIGKILL if it lingers) and waits for it to exit. The SMTP port then refuses
// connections, which is how outage tests make the mail server go away. Stopping twice is harmless.
func (s *Server) Stop() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// Restart stops mailpit if it runs and starts it again on the same ports with the same database, so messages
// delivered before are still there. Call it from the test's goroutine: it fails the test when mailpit does not
// come back.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		s.t.Fatalf("mailpittest: restart: %v", err)
	}
}

// Address is a mailbox as mailpit's API gives it.
type Address struct {
	Name    string
	Address string
}

// Message is one delivered message as mailpit parsed it.
type Message struct {
	ID        string // mailpit's id, for Raw and Headers
	MessageID string // the Message-ID header, without angle brackets
	From      *Address
	To        []Address
	Cc        []Address
	Bcc       []Address // envelope recipients that are in neither To nor Cc
	Subject   string    // decoded
	Date      time.Time
	Username  string // the SMTP AUTH user, empty without AUTH
	Text      string // the text/plain part, decoded, lines ending in "\n"
	HTML      string // the text/html part, decoded, lines ending in "\n"
}

// Messages returns every message mailpit holds, oldest first.
func (s *Server) Messages() ([]Message, error) {
	var list struct {
		Total    int `json:"total"`
		Messages []struct {
			ID string
		} `json:"messages"`
	}
	if err := s.getJSON("/api/v1/messages?limit=10000", &list); err != nil {
		return nil, err
	}
	out := make([]Message, 0, len(list.Messages))
	for i := len(list.Messages) - 1; i >= 0; i-- { // the API lists newest first
		var m Message
		if err := s.getJSON("/api/v1/message/"+url.PathEscape(list.Messages[i].ID), &m); err != nil {
			return nil, err
		}
		m.Text = strings.ReplaceAll(m.Text, "\r\n", "\n")
		m.HTML = strings.ReplaceAll(m.HTML, "\r\n", "\n")
		out = append(out, m)
	}
	return out, nil
}

// Raw returns the message with mailpit's id as received (headers mailpit adds included, such as Return-Path).
func (s *Server) Raw(id string) ([]byte, error) {
	return s.get("/api/v1/message/" + url.PathEscape(id) + "/raw")
}

// Headers returns the message's headers, each with all its values, as mailpit parsed them.
func (s *Server) Headers(id string) (map[string][]string, error) {
	var h map[string][]string
	err := s.getJSON("/api/v1/message/"+url.PathEscape(id)+"/headers", &h)
	return h, err
}

// DeleteAll removes every message, so a test can count what one step delivers.
func (s *Server) DeleteAll() error {
	return s.do(http.MethodDelete, "/api/v1/messages", nil, nil)
}

// Trigger makes the SMTP server answer one kind of command with Code (400 to 599) in Probability percent of
// the cases (0 to 100).
type Trigger struct {
	ErrorCode   int
	Probability int
}

// Chaos is mailpit's fault injection: which commands fail, and how. A zero Trigger never fires.
type Chaos struct {
	Sender         Trigger // MAIL FROM
	Recipient      Trigger // RCPT TO
	Authentication Trigger // AUTH
}

// SetChaos replaces the server's fault injection; the server must have been started WithChaos. SetChaos(Chaos{})
// turns it off.
func (s *Server) SetChaos(c Chaos) error {
	return s.do(http.MethodPut, "/api/v1/chaos", c, nil)
}

func (s *Server) getJSON(path string, v any) error {
	return s.do(http.MethodGet, path, nil, v)
}

func (s *Server) get(path string) ([]byte, error) {
	resp, err := s.http.Get(s.APIURL + path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("mailpit GET %s: %s: %s", path, resp.Status, bytes.TrimSpace(b))
	}
	return b, nil
}

func (s *Server) do(method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.APIURL+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("mailpit %s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(b))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return errors.Join(fmt.Errorf("mailpit %s %s: decode", method, path), err)
	}
	return nil
}
