package wiring

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Build puts serve together on the listener the caller gives, Run serves it until its context ends and
// then closes everything (the store last); the Operator mode opens the same store and secrets into a
// Service without listening.
func TestBuildRunOperator(t *testing.T) {
	dir := t.TempDir()
	cfg := serveConfig(t, "--data-dir", dir, "--chain-rpc-addr", "", "--log-level", "error")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	app, err := Build(t.Context(), cfg, Options{Listener: ln, Stdout: &stdout})
	if err != nil {
		t.Fatal(err)
	}
	if want := "http://" + ln.Addr().String(); app.URL != want || app.Config.PublicURL != want || app.Config.IPFSGatewayURL != want {
		t.Errorf("URL %q, public URL %q, gateway URL %q; want %q (the caller's listener)", app.URL, app.Config.PublicURL,
			app.Config.IPFSGatewayURL, want)
	}
	if app.DefaultTenant == nil || !strings.Contains(stdout.String(), "first start") {
		t.Errorf("no default tenant at a first start (stdout %q)", stdout.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "credentials.json")); err != nil {
		t.Error(err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan error, 1)
	go func() { ran <- app.Run(ctx) }()
	var resp *http.Response
	for range 100 { // Run starts serving asynchronously
		if resp, err = http.Get(app.URL + "/healthz"); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /healthz: %d", resp.StatusCode)
	}
	cancel()
	if err := <-ran; err != nil {
		t.Errorf("Run: %v", err)
	}
	if _, err := app.Store.CountBusinesses(t.Context()); err == nil {
		t.Error("the store is still open after Run returned")
	}
	if _, err := http.Get(app.URL + "/healthz"); err == nil {
		t.Error("the API still answers after Run returned")
	}
	if !strings.Contains(stdout.String(), "listening on "+app.URL) {
		t.Errorf("stdout %q does not say where the API listens", stdout.String())
	}

	op, err := Build(t.Context(), Config{DataDir: dir}, Options{Mode: Operator})
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	if op.Server != nil || op.Pipeline != nil || op.URL != "" {
		t.Error("the Operator mode built a server or a pipeline")
	}
	if n, err := op.Service.Store.CountBusinesses(t.Context()); err != nil || n != 1 {
		t.Errorf("the operator's Service sees %d businesses (%v), want serve's default one", n, err)
	}
	if err := op.Run(t.Context()); err == nil {
		t.Error("an Operator App ran")
	}
}

// A configuration Validate refuses stops Build before anything is created, and a caller's listener is
// closed with it.
func TestBuildRefusesBeforeOpening(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	cfg := serveConfig(t, "--data-dir", dir, "--retention-every", "0")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(t.Context(), cfg, Options{Listener: ln}); err == nil || !strings.Contains(err.Error(), "--retention-every") {
		t.Fatalf("Build: %v, want the --retention-every refusal", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the data dir was created for a refused configuration: %v", err)
	}
	if _, err := ln.Accept(); err == nil {
		t.Error("the caller's listener is still open")
	}
}
