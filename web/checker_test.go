package web_test

import (
	"strings"
	"testing"

	"seald.dev/seald"
)

// The standalone checker is one file to download: every script and style inline (Keccak-256 of @noble/hashes
// with its licence, the canonical hashing, the proof check), nothing loaded from anywhere.
func TestStandaloneChecker(t *testing.T) {
	p, _ := fakePage(&seald.PublicRecord{Status: seald.StatusActive, Reference: "D-1"}, nil)
	w, body := serve(p, "/assets/seald-checker.html")
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Disposition"), "attachment") ||
		w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("%d %v", w.Code, w.Header())
	}
	for _, want := range []string{"var nobleHashes=", "Permission is hereby granted", "window.sealdCheck", "window.sealdProof",
		`id="proof-bundle-file"`, `id="proof-trust-file"`, `id="proof-rpc"`, "@noble/hashes 2."} {
		if !strings.Contains(body, want) {
			t.Errorf("the checker lacks %q", want)
		}
	}
	for _, bad := range []string{" src=", "<link", "{{"} {
		if strings.Contains(body, bad) {
			t.Errorf("the checker holds %q: it must stand alone", bad)
		}
	}
	if w, _ := serve(p, "/assets/noble-hashes.LICENSE"); w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		t.Errorf("the licence of noble-hashes: %d %v", w.Code, w.Header())
	}
}
