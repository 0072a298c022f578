package e2e

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// loadRun is a few clients sealing records at a steady pace until stopped, keeping every answer.
type loadRun struct {
	mu      sync.Mutex
	results []sealResult
	stop    atomic.Bool
	wg      sync.WaitGroup
}

func startLoad(in *instance, clients int, pace time.Duration, tag string, extra map[string]any) *loadRun {
	l := &loadRun{}
	var seq atomic.Int64
	for c := range clients {
		l.wg.Go(func() {
			for !l.stop.Load() {
				r := trySeal(in.URL, in.Sub, in.API, map[string]any{"run": tag, "client": c, "n": seq.Add(1)}, extra)
				l.mu.Lock()
				l.results = append(l.results, r)
				l.mu.Unlock()
				time.Sleep(pace)
			}
		})
	}
	return l
}

// seen counts the answers with the given status so far.
func (l *loadRun) seen(status int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, r := range l.results {
		if r.Status == status {
			n++
		}
	}
	return n
}

// snapshot returns the answers so far without stopping the clients.
func (l *loadRun) snapshot() []sealResult {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]sealResult(nil), l.results...)
}

func (l *loadRun) finish() []sealResult {
	l.stop.Store(true)
	l.wg.Wait()
	return l.results
}

// accepted returns the references of the 201s and a count of answers by status.
func accepted(results []sealResult) ([]string, map[int]int) {
	var refs []string
	codes := map[int]int{}
	for _, r := range results {
		codes[r.Status]++
		if r.Status == 201 {
			refs = append(refs, r.Ref)
		}
	}
	return refs, codes
}

// TestPostgresRestart runs serve on a private PostgreSQL server, stops that server for 10 s in the middle of
// a steady load and starts it again. While it is down the API answers 503 EUNAVAILABLE in the operation's
// envelope (never 500, never a 401 that would count against the caller); afterwards seald reconnects by
// itself, and every record accepted before, during or after the outage completes with a unique token.
func TestPostgresRestart(t *testing.T) {
	t.Parallel() // it mostly waits out its outage: the other outage tests wait beside it
	pg := startPG(t)
	in := startServe(t, t.TempDir(), nil, "--database", pg.DSN)
	load := startLoad(in, 2, 20*time.Millisecond, "pg", nil)
	if !until(30*time.Second, func() bool { return load.seen(201) >= 10 }) {
		t.Fatalf("no load before the outage\n%s", in.logText())
	}

	pg.Stop()
	down := time.Now()
	if !until(30*time.Second, func() bool { return load.seen(503) > 0 }) {
		t.Fatalf("no 503 while PostgreSQL is down: %v", load.seen(0))
	}
	// A well-formed reference, so the answer needs the store even when the caller's keys are cached.
	st := in.get(statusPath + "?reference=D-00000000-0000-4000-8000-000000000000")
	if st.Status != 503 || st.Body["success"] != false || st.Body["error"] == nil {
		t.Errorf("status during the outage: %d %s", st.Status, st.Raw)
	}
	for time.Since(down) < 10*time.Second {
		time.Sleep(100 * time.Millisecond)
	}
	acceptedBefore := load.seen(201)
	pg.Start()
	up := time.Now()
	if !until(60*time.Second, func() bool { return load.seen(201) > acceptedBefore }) {
		t.Fatalf("seald did not reconnect within 60 s\n%s", in.logText())
	}
	reconnect := time.Since(up)
	time.Sleep(time.Second)
	results := load.finish()

	refs, codes := accepted(results)
	for code, n := range codes {
		if code != 201 && code != 503 {
			t.Errorf("%d answers with status %d (only 201 and 503 expected)", n, code)
		}
	}
	// A 503 from a commit whose answer was lost may still have stored the record: then it must complete too.
	committed503 := 0
	for _, r := range results {
		if r.Status == 503 {
			if v := in.get(verifyBase + "hash?hash=" + r.Hash); v.Status == 200 {
				committed503++
				refs = append(refs, str(v.Body, "data.details.reference"))
			}
		}
	}
	start := time.Now()
	tokens := completeAll(t, in, refs, 4*time.Minute)
	t.Logf("PostgreSQL down 10 s: answers %v; first 201 %s after the server was back; %d records (%d of them answered 503 but committed), %d unique tokens, all COMPLETED %s later",
		codes, reconnect.Round(time.Millisecond), len(refs), committed503, len(tokens), time.Since(start).Round(time.Millisecond))
}

// peerOutage is how long each real dependency is stopped in the outage tests: long enough for several
// retries of the waiting step (the pipeline's backoff from 0.5 s: 0.5, 1, 2, 4 s), short enough that the
// suite does not wait out 30 s outages and the 16-30 s backoffs they lead to.
const peerOutage = 10 * time.Second

// errorShownWithin bounds the wait for a status record to show a dependency's error once it is down; the
// outage lasts until then if that takes longer than peerOutage.
const errorShownWithin = 30 * time.Second

// waitErrorType polls the status records of the references accepted since index from until one shows the
// error type, and returns that record.
func waitErrorType(t *testing.T, in *instance, load *loadRun, from int, errorType string, timeout time.Duration) map[string]any {
	t.Helper()
	var shown map[string]any
	ok := until(timeout, func() bool {
		load.mu.Lock()
		recent := append([]sealResult(nil), load.results[min(from, len(load.results)):]...)
		load.mu.Unlock()
		for _, r := range recent {
			if r.Status != 201 {
				continue
			}
			st := in.get(statusPath + "?reference=" + r.Ref)
			if rec, _ := st.Body["data"].(map[string]any); str(rec, "error_type") == errorType {
				shown = rec
				return true
			}
		}
		return false
	})
	if !ok {
		t.Fatalf("no status record showed %s within %s\n%s", errorType, timeout, in.logText())
	}
	if str(shown, "state") == "FAILED" || str(shown, "error_message") == "" {
		t.Errorf("status during the outage: %v", shown)
	}
	return shown
}

// holdOutage keeps a dependency down until peerOutage has passed since down.
func holdOutage(down time.Time) {
	for time.Since(down) < peerOutage {
		time.Sleep(100 * time.Millisecond)
	}
}
