package pipeline_test

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/jcs"
	"seald.dev/seald/pipeline"
	"seald.dev/seald/proof"
	"seald.dev/seald/secret"
	"seald.dev/seald/service"
	"seald.dev/seald/sqlite"
)

// env is a service and pipeline on a real SQLite store with fault-injecting fakes for IPFS, chain and mail.
type env struct {
	t      *testing.T
	path   string
	store  seald.Store
	svc    *service.Service
	blobs  *fakeBlobs
	chain  *fakeChain
	mailer *fakeMailer
	caller *seald.Caller
	crash  func(string)
	stop   func()
	// replaceAfter is the pipeline's ReplaceAfter (0: its default).
	replaceAfter time.Duration
	// maxWait is the pipeline's Anchor.MaxWait (0: 30 ms).
	maxWait time.Duration
	// anchorer, when set, is the chain records are anchored on instead of the fake (chain_test.go).
	anchorer seald.Anchorer
	// patience bounds wait (0: 20 s).
	patience time.Duration
	// outbox, when set, is the Mailer instead of the fake (outbox_test.go).
	outbox seald.Mailer
	// workers and lease are the pipeline's Workers (0: 3) and Lease (0: its default).
	workers int
	lease   time.Duration
	// poll and gather are the pipeline's Poll (0: 10 ms) and Gather (0: its default).
	poll, gather time.Duration
	// wrap, when set, wraps the store the pipeline is given (lifecycle_test.go).
	wrap func(pipeline.Store) pipeline.Store
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvOn(t, nil)
}

// newEnvOn is newEnv anchoring on a (the fake chain when nil).
func newEnvOn(t *testing.T, a seald.Anchorer) *env {
	t.Helper()
	secrets, err := secret.Generate()
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, path: filepath.Join(t.TempDir(), "seald.db"), blobs: &fakeBlobs{}, chain: newFakeChain(), mailer: &fakeMailer{}, anchorer: a}
	e.open()
	e.svc.Secrets = secrets
	tn, err := e.svc.CreateTenant(t.Context(), seald.Operator(), seald.TenantRequest{Business: "Acme", Project: "Docs"})
	if err != nil {
		t.Fatal(err)
	}
	if e.caller, err = e.svc.Authenticate(t.Context(), tn.SubscriptionKey, tn.APIKey); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.halt(); e.store.Close() })
	return e
}

// open opens the store as a fresh process would.
func (e *env) open() {
	st, err := sqlite.Open(e.t.Context(), e.path)
	if err != nil {
		e.t.Fatal(err)
	}
	var secrets seald.Secrets
	if e.svc != nil {
		secrets = e.svc.Secrets
	}
	e.store = st
	ch := e.chain.Chain()
	if e.anchorer != nil {
		ch = e.anchorer.Chain()
	}
	e.svc = &service.Service{Store: st, Secrets: secrets, Blobs: e.blobs, PublicURL: "http://seald.test",
		Canonicalize: jcs.Canonicalize, Chains: map[string]seald.Chain{seald.NetworkPolygon: ch}}
}

// start runs a pipeline until halt.
func (e *env) start(batch int) {
	maxWait := e.maxWait
	if maxWait == 0 {
		maxWait = 30 * time.Millisecond
	}
	var a seald.Anchorer = e.chain
	if e.anchorer != nil {
		a = e.anchorer
	}
	var m seald.Mailer = e.mailer
	if e.outbox != nil {
		m = e.outbox
	}
	var st pipeline.Store = e.store
	if e.wrap != nil {
		st = e.wrap(st)
	}
	p := &pipeline.Pipeline{
		Store: st, Secrets: e.svc.Secrets, Blobs: e.blobs, Mailer: m,
		Anchorers: map[string]seald.Anchorer{seald.NetworkPolygon: a},
		Link:      e.svc.VerificationLink,
		Anchor:    pipeline.AnchorPolicy{MaxRecords: batch, MaxWait: maxWait},
		Retry:     pipeline.RetryPolicy{Base: 5 * time.Millisecond, Max: 40 * time.Millisecond, MaxAttempts: 8},
		Poll:      cmp.Or(e.poll, 10*time.Millisecond), Gather: e.gather, Workers: cmp.Or(e.workers, 3), Lease: e.lease, Crash: e.crash,
		ReplaceAfter: e.replaceAfter,
	}
	if err := e.store.ReleaseLeases(e.t.Context()); err != nil {
		e.t.Fatal(err)
	}
	e.svc.Wake = p.Wake
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	e.stop = func() { cancel(); <-done }
}

func (e *env) halt() {
	if e.stop != nil {
		e.stop()
		e.stop = nil
	}
}

// restart simulates a process restart: the pipeline stops, the store is closed and opened again.
func (e *env) restart(batch int) {
	e.halt()
	e.store.Close()
	e.crash = nil
	e.open()
	e.start(batch)
}

func (e *env) seal(i int) *seald.Record {
	e.t.Helper()
	r, err := e.svc.Seal(e.t.Context(), e.caller, &seald.SealRequest{
		Data: []byte(fmt.Sprintf(`{"n":%d}`, i)), To: "alice@example.com", Subject: "s", Body: "b"})
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

// wait polls a record until cond holds.
func (e *env) wait(ref string, what string, cond func(*seald.Record) bool) *seald.Record {
	e.t.Helper()
	deadline := time.Now().Add(cmp.Or(e.patience, 20*time.Second))
	for {
		r, err := e.store.Record(e.t.Context(), ref)
		if err != nil {
			e.t.Fatal(err)
		}
		if cond(r) {
			return r
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s: never %s; state %s, error %s %q", ref, what, r.State, r.ErrorType, r.ErrorMessage)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (e *env) waitState(ref string, s seald.State) *seald.Record {
	e.t.Helper()
	return e.wait(ref, string(s), func(r *seald.Record) bool { return r.State == s })
}

func TestPipelineCompletesInBatches(t *testing.T) {
	e := newEnv(t)
	var refs []string
	for i := range 10 {
		refs = append(refs, e.seal(i).Reference)
	}
	e.start(4)
	tokens := map[uint64]bool{}
	for _, ref := range refs {
		r := e.waitState(ref, seald.StateCompleted)
		if r.TokenID == 0 || tokens[r.TokenID] {
			t.Errorf("%s: token %d missing or doubled", ref, r.TokenID)
		}
		tokens[r.TokenID] = true
		if !r.IsSigned || r.Signature == "" || r.MessageID == "" || r.CID == "" || r.ErrorType != "" {
			t.Errorf("%s: incomplete record %+v", ref, r)
		}
		if n := e.mailer.count(ref); n != 1 {
			t.Errorf("%s: %d e-mails, want 1", ref, n)
		}
		if _, err := e.store.Payload(t.Context(), ref); seald.ErrorCode(err) != seald.ENOTFOUND {
			t.Errorf("%s: the plaintext payload is still kept after IPFS_STORED (err %v)", ref, err)
		}
		p, err := proofOf(t, e, r)
		if err != nil || p.VerifySignature() != nil || p.TokenID != fmt.Sprint(r.TokenID) {
			t.Errorf("%s: proof %+v, %v", ref, p, err)
		}
	}
	for id := uint64(1); id <= 10; id++ {
		if !tokens[id] {
			t.Errorf("token %d not assigned; tokens %v", id, tokens)
		}
	}
	if e.chain.minedBatches() < 3 {
		t.Errorf("%d batches for 10 records at 4 per batch", e.chain.minedBatches())
	}
}

func TestPipelineIPFSOutageRetries(t *testing.T) {
	e := newEnv(t)
	e.blobs.set("put", 4, errDown)
	ref := e.seal(1).Reference
	e.start(8)
	r := e.wait(ref, "showing IPFS_ERROR", func(r *seald.Record) bool { return r.ErrorType == seald.ErrorTypeIPFS })
	if r.State != seald.StatePending || r.ErrorMessage == "" {
		t.Errorf("during the outage: state %s, message %q", r.State, r.ErrorMessage)
	}
	r = e.waitState(ref, seald.StateCompleted)
	if r.ErrorType != "" || r.ErrorMessage != "" {
		t.Errorf("error not cleared: %s %q", r.ErrorType, r.ErrorMessage)
	}
}

func TestPipelineChainOutageRetries(t *testing.T) {
	e := newEnv(t)
	e.chain.set("rpc", 6, errDown)
	ref := e.seal(1).Reference
	e.start(8)
	e.wait(ref, "showing BLOCKCHAIN_ERROR", func(r *seald.Record) bool { return r.ErrorType == seald.ErrorTypeBlockchain })
	r := e.waitState(ref, seald.StateCompleted)
	if r.ErrorType != "" || r.TokenID != 1 {
		t.Errorf("after the outage: %+v", r)
	}
}

func TestPipelineMailRejectedFailsButStaysVerifiable(t *testing.T) {
	e := newEnv(t)
	e.mailer.set("send", 1, seald.Permanent(fmt.Errorf("550 5.1.1 mailbox unavailable")))
	ref := e.seal(1).Reference
	e.start(8)
	r := e.waitState(ref, seald.StateFailed)
	if r.ErrorType != seald.ErrorTypeEmail || r.TokenID == 0 {
		t.Errorf("rejected mail: %+v", r)
	}
	v, err := e.svc.Verify(t.Context(), e.caller, seald.Lookup{Reference: ref})
	if err != nil || v.Record.Status != seald.StatusActive {
		t.Errorf("a failed mail unsealed the record: %v", err)
	}
	if n := e.mailer.count(ref); n != 0 {
		t.Errorf("%d mails recorded as sent", n)
	}
}

func TestPipelineMailTransientRetries(t *testing.T) {
	e := newEnv(t)
	e.mailer.set("send", 2, fmt.Errorf("451 4.3.0 try again later"))
	ref := e.seal(1).Reference
	e.start(8)
	e.wait(ref, "showing EMAIL_ERROR", func(r *seald.Record) bool { return r.ErrorType == seald.ErrorTypeEmail })
	e.waitState(ref, seald.StateCompleted)
	if n := e.mailer.count(ref); n != 1 {
		t.Errorf("%d mails, want 1", n)
	}
}

// crashOnce stops the goroutine that reaches the point, the first time only, as a process death would stop
// it: nothing after the point runs.
func crashOnce(point string) (func(string), *atomic.Bool) {
	var hit atomic.Bool
	return func(p string) {
		if p == point && hit.CompareAndSwap(false, true) {
			runtime.Goexit()
		}
	}, &hit
}

func TestPipelineCrashPoints(t *testing.T) {
	for _, tc := range []struct {
		point     string
		wantMails int // a crash between sending and saving re-sends: the only place a duplicate can occur
		wantPuts  int64
	}{
		{seald.CrashAfterIPFSAdd, 1, 2},
		{seald.CrashAfterSign, 1, 1},
		{seald.CrashAfterBroadcast, 1, 1},
		{seald.CrashAfterConfirmTx, 1, 1},
		{seald.CrashAfterMailSend, 2, 1},
	} {
		t.Run(tc.point, func(t *testing.T) {
			e := newEnv(t)
			var hit *atomic.Bool
			e.crash, hit = crashOnce(tc.point)
			ref := e.seal(1).Reference
			e.start(8)
			deadline := time.Now().Add(10 * time.Second)
			for !hit.Load() {
				if time.Now().After(deadline) {
					t.Fatal("the crash point was never reached")
				}
				time.Sleep(5 * time.Millisecond)
			}
			e.restart(8)
			r := e.waitState(ref, seald.StateCompleted)
			if r.TokenID != 1 {
				t.Errorf("token %d, want 1", r.TokenID)
			}
			if e.chain.minedBatches() != 1 {
				t.Errorf("%d batches mined, want 1", e.chain.minedBatches())
			}
			if n := e.mailer.count(ref); n != tc.wantMails {
				t.Errorf("%d e-mails, want %d", n, tc.wantMails)
			}
			if n := e.blobs.puts.Load(); n != tc.wantPuts {
				t.Errorf("%d IPFS puts, want %d", n, tc.wantPuts)
			}
		})
	}
}

func TestPipelineRevocationReachesChain(t *testing.T) {
	e := newEnv(t)
	ref := e.seal(1).Reference
	e.start(8)
	r := e.waitState(ref, seald.StateCompleted)
	if _, err := e.svc.SetStatus(t.Context(), e.caller, ref, "REVOKED", "test"); err != nil {
		t.Fatal(err)
	}
	e.wait(ref, "revoked on chain", func(r *seald.Record) bool { return r.RevokedOnChain })
	if n := e.chain.revocations(r.TokenID); n != 1 {
		t.Errorf("token revoked %d times", n)
	}
	trail, err := e.store.AuditTrail(t.Context(), ref)
	if err != nil || len(trail) != 1 || trail[0].From != seald.StatusActive || trail[0].To != seald.StatusRevoked {
		t.Errorf("audit trail %v, %v", trail, err)
	}
}

// A revocation's transaction is saved before it is sent, a stuck one is replaced at its nonce with a new
// attempt, and anchoring goes on meanwhile: a record sealed while the revocation is stuck completes.
func TestPipelineStuckRevocationReplaced(t *testing.T) {
	e := newEnv(t)
	e.replaceAfter = 150 * time.Millisecond
	ref := e.seal(1).Reference
	e.start(8)
	r := e.waitState(ref, seald.StateCompleted)
	e.chain.setHoldRevokes(true)
	if _, err := e.svc.SetStatus(t.Context(), e.caller, ref, "REVOKED", "stuck"); err != nil {
		t.Fatal(err)
	}
	var rv *seald.Revocation
	deadline := time.Now().Add(20 * time.Second)
	for {
		var err error
		rv, err = e.store.Revocation(t.Context(), seald.NetworkPolygon, r.TokenID)
		if err == nil && rv.Attempt >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no replacement of the stuck revocation: %+v, %v", rv, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if len(rv.TxHashes) != rv.Attempt+1 || rv.TxHash != rv.TxHashes[rv.Attempt] || rv.State == seald.BatchConfirmed {
		t.Errorf("stuck revocation saved as %+v", rv)
	}
	first := rv.Nonce
	later := e.seal(2).Reference
	e.waitState(later, seald.StateCompleted)
	if got := e.wait(ref, "still pending", func(*seald.Record) bool { return true }); got.RevokedOnChain {
		t.Fatal("revoked on chain while the chain holds every revocation")
	}
	e.chain.setHoldRevokes(false)
	e.wait(ref, "revoked on chain", func(r *seald.Record) bool { return r.RevokedOnChain })
	rv, err := e.store.Revocation(t.Context(), seald.NetworkPolygon, r.TokenID)
	if err != nil || rv.State != seald.BatchConfirmed || rv.Nonce != first {
		t.Errorf("revocation after inclusion: %+v, %v (first nonce %d)", rv, err, first)
	}
	if n := e.chain.revocations(r.TokenID); n != 1 {
		t.Errorf("token revoked %d times", n)
	}
}

func TestPipelineRevocationBeforeAnchorWaits(t *testing.T) {
	revokeBeforeAnchor(t, newEnv(t))
}

// revokeBeforeAnchor revokes a record before the pipeline starts, and checks that it is revoked on chain once,
// after its batch.
func revokeBeforeAnchor(t *testing.T, e *env) {
	t.Helper()
	ref := e.seal(1).Reference
	if _, err := e.svc.SetStatus(t.Context(), e.caller, ref, "REVOKED", ""); err != nil {
		t.Fatal(err)
	}
	e.start(8)
	r := e.wait(ref, "revoked on chain", func(r *seald.Record) bool { return r.RevokedOnChain })
	if r.TokenID == 0 || e.chain.revocations(r.TokenID) != 1 {
		t.Errorf("revocation before anchoring: %+v", r)
	}
}

// claimCounter counts the jobs claimed, by kind.
type claimCounter struct {
	seald.Store
	mu    sync.Mutex
	kinds map[string]int
}

func (c *claimCounter) ClaimJobs(ctx context.Context, kinds []string, limit int, now time.Time, lease time.Duration) ([]*seald.Job, error) {
	jobs, err := c.Store.ClaimJobs(ctx, kinds, limit, now, lease)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, j := range jobs {
		c.kinds[j.Kind]++
	}
	return jobs, err
}

// The notify step finishes the record in its own transaction: a record reaches COMPLETED, signed, its
// e-mail sent once, with no finish job ever queued.
func TestPipelineNotifyFinishes(t *testing.T) {
	e := newEnv(t)
	refs := []string{e.seal(1).Reference, e.seal(2).Reference}
	counter := &claimCounter{Store: e.store, kinds: map[string]int{}}
	e.store = counter
	e.start(2)
	for _, ref := range refs {
		r := e.waitState(ref, seald.StateCompleted)
		if !r.IsSigned || r.Signature == "" || r.MessageID == "" {
			t.Errorf("%s COMPLETED unsigned or without its e-mail: %+v", ref, r)
		}
		if got := e.mailer.count(ref); got != 1 {
			t.Errorf("%s: %d e-mails, want 1", ref, got)
		}
	}
	counter.mu.Lock()
	defer counter.mu.Unlock()
	if counter.kinds[seald.JobNotify] != 2 || counter.kinds[seald.JobFinish] != 0 {
		t.Errorf("jobs claimed %v, want two notify and no finish", counter.kinds)
	}
}

// proofOf is the proof bundle the service answers for r when a verification asks for it (nil with no error
// before r is anchored).
func proofOf(t *testing.T, e *env, r *seald.Record) (*proof.Bundle, error) {
	t.Helper()
	v, err := e.svc.Verify(t.Context(), e.caller, seald.Lookup{Reference: r.Reference, Proof: true})
	if err != nil {
		return nil, err
	}
	return v.Proof, nil
}
