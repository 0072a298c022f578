package web_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

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

type blockTimes func(network string, block uint64) (time.Time, error)

func (f blockTimes) BlockTime(_ context.Context, network string, block uint64) (time.Time, error) {
	return f(network, block)
}

// The page gives the anchor's block time, read once per block; a PRIVATE record on a development chain reads
// no "Genuine" (issue 32).
func TestAnchorTimeAndPrivateDevelopment(t *testing.T) {
	rec := &seald.PublicRecord{Status: seald.StatusActive, Reference: "D-1", Hash: "ab12", Network: "POLYGON",
		Chain:   seald.Chain{Network: "POLYGON", ChainID: "137", Contract: "0xC0", PublicRPC: "https://rpc.example"},
		TokenID: 9, TxHash: "0xt", BlockNumber: 77}
	p, _ := fakePage(rec, nil)
	asked := 0
	p.BlockTimes = blockTimes(func(network string, block uint64) (time.Time, error) {
		asked++
		if network != "POLYGON" || block != 77 {
			t.Errorf("asked for block %d of %s", block, network)
		}
		return time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC), nil
	})
	for range 2 {
		_, body := serve(p, "/v/D-1")
		for _, want := range []string{"no later than 6 May 2026, 07:08:09 UTC, the time of block 77", `datetime="2026-05-06T07:08:09Z"`,
			`value="https://rpc.example"`, `data-proof="/v/D-1/proof.json"`} {
			if !strings.Contains(body, want) {
				t.Errorf("page lacks %q", want)
			}
		}
	}
	if asked != 1 {
		t.Errorf("the block time was read %d times, want once", asked)
	}
	p.BlockTimes = blockTimes(func(string, uint64) (time.Time, error) { return time.Time{}, errors.New("node down") })
	if w, body := serve(p, "/v/D-2"); w.Code != 200 || !strings.Contains(body, "no later than 6 May 2026") {
		t.Errorf("a cached block time is not used: %d", w.Code) // D-2 is the same record, block 77
	}

	dev, _ := fakePage(&seald.PublicRecord{Private: true, Status: seald.StatusActive, Development: true}, nil)
	if _, body := serve(dev, "/v/D-3"); strings.Contains(body, "Genuine") || !strings.Contains(body, "Development record: checked here only, not proven") {
		t.Errorf("PRIVATE record on a development chain reads as a verdict:\n%s", body)
	}
}
