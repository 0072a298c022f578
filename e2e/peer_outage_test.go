package e2e

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"seald.dev/seald"
	"seald.dev/seald/evm"
	"seald.dev/seald/evm/gethtest"
	"seald.dev/seald/mail/mailpittest"
)

// TestChainAndSMTPOutages runs serve against a real geth (--chain) and a real SMTP server (mailpit, --smtp)
// under a steady load, and stops each for peerOutage (10 s) in turn: first mailpit, then geth. While one is down, the
// status record of a waiting record shows EMAIL_ERROR or BLOCKCHAIN_ERROR (the record keeps its state);
// once it is back, every accepted record completes, token ids are unique, the contract minted exactly one
// token per record, and mailpit holds exactly one message per record (a refused connection sends nothing,
// so no outage duplicates an e-mail).
func TestChainAndSMTPOutages(t *testing.T) {
	t.Parallel() // it mostly waits out its outages: the other outage tests wait beside it
	g := gethtest.Start(t, gethtest.Options{})
	mp := mailpittest.Start(t)
	keyFile := filepath.Join(t.TempDir(), "chain.key")
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(crypto.FromECDSA(g.Key))), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := startServe(t, dir, nil, "--chain", g.URL, "--chain-key-file", keyFile, "--smtp", mp.PlainURL)
	load := startLoad(in, 2, 200*time.Millisecond, "peers", nil)
	if !until(60*time.Second, func() bool { return load.seen(201) >= 5 }) {
		t.Fatalf("no load\n%s", in.logText())
	}

	// SMTP server down: records get anchored and wait for their e-mail.
	from := len(load.snapshot())
	mp.Stop()
	down := time.Now()
	rec := waitErrorType(t, in, load, from, seald.ErrorTypeEmail, errorShownWithin)
	if str(rec, "state") != "ANCHORED" || str(rec, "token_id") == "" {
		t.Errorf("during the SMTP outage: %v", rec)
	}
	holdOutage(down)
	mp.Restart()
	mailBack := time.Now()

	// Chain node down: records get stored and wait for their batch.
	from = len(load.snapshot())
	g.Stop()
	down = time.Now()
	rec = waitErrorType(t, in, load, from, seald.ErrorTypeBlockchain, errorShownWithin)
	if str(rec, "state") != "IPFS_STORED" {
		t.Errorf("during the chain outage: %v", rec)
	}
	holdOutage(down)
	g.Restart()
	chainBack := time.Now()
	time.Sleep(time.Second)
	results := load.finish()

	refs, codes := accepted(results)
	if len(refs) != len(results) {
		t.Errorf("answers %v: every seal should be accepted while a peer is down", codes)
	}
	tokens := completeAll(t, in, refs, 3*time.Minute)
	recovered := time.Since(chainBack)

	// The chain's own count: exactly one token per record.
	var saved struct{ Address string }
	b, err := os.ReadFile(filepath.Join(dir, "contract-polygon.json"))
	if err != nil || json.Unmarshal(b, &saved) != nil {
		t.Fatalf("contract file: %v %s", err, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, err := evm.DialAnchorer(ctx, g.URL, common.HexToAddress(saved.Address), g.Key, seald.NetworkPolygon, evm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if next, err := a.NextTokenID(ctx); err != nil || next != uint64(len(refs))+1 {
		t.Errorf("the contract's next token id is %d (%v) after %d records", next, err, len(refs))
	}

	// Exactly one message per record.
	msgs, err := mp.Messages()
	if err != nil {
		t.Fatal(err)
	}
	perRef := map[string]int{}
	for _, m := range msgs {
		perRef[strings.SplitN(m.MessageID, "@", 2)[0]]++
	}
	dups := 0
	for _, ref := range refs {
		switch n := perRef[ref]; {
		case n == 0:
			t.Errorf("%s: no message", ref)
		case n > 1:
			dups += n - 1
		}
	}
	if dups != 0 {
		t.Errorf("%d duplicate messages", dups)
	}
	t.Logf("SMTP and chain down %s each: %d records, %d unique tokens, %d messages, %d duplicates; all COMPLETED %s after geth was back (SMTP back %s before that)",
		peerOutage, len(refs), len(tokens), len(msgs), dups, recovered.Round(time.Millisecond), chainBack.Sub(mailBack).Round(time.Second))
}
