package e2e

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestKill9UnderLoad kills the real binary with SIGKILL five times while 8 clients submit records without
// pause, restarting it each time on the same data dir. At the end every record that got a 201 is COMPLETED,
// token ids are unique, records whose answer the kill cut off are either absent or completed too, and the
// chain minted exactly one token per record kept.
func TestKill9UnderLoad(t *testing.T) {
	t.Parallel()
	const clients, kills = 8, 5
	bin := buildBinary(t, "")
	dir := t.TempDir()
	p := startProcess(t, bin, dir, nil)
	var all []sealResult
	var seq atomic.Int64
	for round := range kills {
		var (
			mu   sync.Mutex
			got  []sealResult
			stop atomic.Bool
			wg   sync.WaitGroup
		)
		url, sub, api := p.in.URL, p.in.Sub, p.in.API
		for c := range clients {
			wg.Go(func() {
				for !stop.Load() {
					r := trySeal(url, sub, api, map[string]any{"round": round, "client": c, "n": seq.Add(1)}, nil)
					mu.Lock()
					got = append(got, r)
					mu.Unlock()
					if r.Err != nil && r.Status == 0 {
						return // the server is gone
					}
					if r.Status != 201 {
						t.Errorf("seal under load: %d %v", r.Status, r.Err)
						return
					}
				}
			})
		}
		// Kill at a random moment, so the kill lands in a different step each round.
		time.Sleep(time.Duration(500+rand.IntN(2000)) * time.Millisecond)
		p.kill()
		stop.Store(true)
		wg.Wait()
		all = append(all, got...)
		acked := 0
		for _, r := range got {
			if r.Status == 201 {
				acked++
			}
		}
		t.Logf("round %d: %d requests, %d accepted before kill -9", round+1, len(got), acked)
		p = startProcess(t, bin, dir, nil)
	}

	var refs []string
	accepted, unacked := 0, 0
	for _, r := range all {
		if r.Status == 201 {
			accepted++
			refs = append(refs, r.Ref)
			continue
		}
		// No answer: the record may have been committed before the kill. If it was, it must complete.
		code, env := tryGet(p.in.URL, p.in.Sub, p.in.API, verifyBase+"hash?hash="+r.Hash)
		switch code {
		case 200:
			unacked++
			refs = append(refs, str(env, "data.details.reference"))
		case 404:
		default:
			t.Fatalf("verify by hash: %d %v", code, env)
		}
	}
	start := time.Now()
	tokens := completeAll(t, p.in, refs, 3*time.Minute)
	recovery := time.Since(start)
	if len(tokens) != len(refs) {
		t.Fatalf("%d tokens for %d records", len(tokens), len(refs))
	}
	p.terminate(t)
	if next := chainNextTokenID(t, dir); next != uint64(len(refs))+1 {
		t.Errorf("the chain's next token id is %d after %d records", next, len(refs))
	}
	t.Logf("kill -9 x%d under %d clients: %d accepted, %d more committed without an answer, %d unique tokens, all COMPLETED %s after the last restart",
		kills, clients, accepted, unacked, len(tokens), recovery.Round(time.Millisecond))
}
