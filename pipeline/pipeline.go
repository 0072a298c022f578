package pipeline

import (
	"seald.dev/seald"
	"seald.dev/seald/proof"

	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"
)

// RetryPolicy says how failed steps are retried: exponential backoff from Base, doubling up to Max, with
// ±20% jitter so that records that failed together do not retry together, until MaxAttempts failures.
type RetryPolicy struct {
	Base        time.Duration
	Max         time.Duration
	MaxAttempts int
}

// DefaultRetry retries for about an hour before a step fails for good.
var DefaultRetry = RetryPolicy{Base: 500 * time.Millisecond, Max: 30 * time.Second, MaxAttempts: 150}

// Delay returns the wait before the retry that follows the given number of failures.
func (p RetryPolicy) Delay(failures int) time.Duration {
	d := p.Base
	for i := 1; i < failures && d < p.Max; i++ {
		d *= 2
	}
	if d > p.Max {
		d = p.Max
	}
	jitter := 0.8 + 0.4*rand.Float64()
	return time.Duration(float64(d) * jitter)
}

// AnchorPolicy says when a batch closes.
type AnchorPolicy struct {
	// MaxRecords bounds a batch (default 1,024). A batch leaves as soon as no batch transaction of its
	// network is in flight, with whatever waits, up to MaxRecords; see anchorRound.
	MaxRecords int
	// MaxWait is the upper bound of a wait in the anchoring step: how long a revocation waiting for its
	// token's batch sleeps between looks (default 2 s). Batches no longer wait for it to pass.
	MaxWait time.Duration
}

// DefaultWorkers is the number of job runners of a Pipeline that does not say.
const DefaultWorkers = 128

// DefaultLease is how long a claimed job (or webhook delivery) is reserved when its runner does not say:
// long enough for a slow step, short enough that a killed instance's work resumes soon.
const DefaultLease = 2 * time.Minute

// DefaultGather is the Gather of a Pipeline that does not say: a few milliseconds on a record's way, against a
// claim (a write transaction) for every acceptance at moderate rates.
const DefaultGather = 10 * time.Millisecond

// DefaultAnchor is the AnchorPolicy of a Pipeline that does not say.
var DefaultAnchor = AnchorPolicy{MaxRecords: 1024, MaxWait: 2 * time.Second}

// Store is what the pipeline uses of the stores: its jobs, the records they work on, the batches
// that anchor them and the leader locks.
// It is narrowed to the methods the pipeline calls, so that a store written for it (a fault-injecting
// wrapper in a test) implements only those.
type Store interface {
	seald.Batches
	seald.Revocations
	seald.Locks

	// The jobs (seald.Jobs): claimed, ended, retried, failed, and requeued by the sweep at start.
	ClaimJobs(ctx context.Context, kinds []string, limit int, now time.Time, lease time.Duration) ([]*seald.Job, error)
	CompleteJob(ctx context.Context, j *seald.Job, u *seald.RecordUpdate, dropPayload bool, next ...*seald.Job) error
	RetryJob(ctx context.Context, j *seald.Job, errorType, errorMessage string) error
	FailJob(ctx context.Context, j *seald.Job, state seald.State, errorType, errorMessage string, ev *seald.Event, now time.Time) error
	RequeueJob(ctx context.Context, j *seald.Job) (queued bool, err error)

	// The records the jobs work on (seald.Records).
	Record(ctx context.Context, reference string) (*seald.Record, error)
	Payload(ctx context.Context, reference string) ([]byte, error)
	RecordByToken(ctx context.Context, network string, tokenID uint64) (*seald.Record, error)
	RevokedTokens(ctx context.Context, network string, after uint64, limit int) ([]*seald.Record, error)
	ErasedCopies(ctx context.Context, after string, limit int) ([]*seald.Record, error)
}

// Pipeline runs the durable jobs of records: store (IPFS), anchor (one leader per network), notify (e-mail,
// then sign and COMPLETED in the same transaction; a separate finish job only when this process lacks the
// record's chain), plus revocations. Every step is idempotent and its effect is saved in the
// same transaction that deletes its job, so a crash at any point resumes at the step that was running.
type Pipeline struct {
	Store     Store
	Secrets   seald.Secrets
	Blobs     seald.BlobStore           // nil: records wait in PENDING
	Anchorers map[string]seald.Anchorer // by network; a missing one: records wait in IPFS_STORED
	Mailer    seald.Mailer              // nil: records wait in ANCHORED
	// Credentials issues the credential attached to the e-mail of a record whose project attaches it
	// (MailRequest.AttachCredential); nil: such records wait in ANCHORED, retried.
	Credentials seald.MailCredentials
	// Link returns the verification link of a reference, for e-mails.
	Link   func(reference string) string
	Anchor AnchorPolicy
	Retry  RetryPolicy
	// Workers is the number of concurrent job runners (default 128). Their store writes are committed in
	// groups, their IPFS puts synced together and their e-mails appended together, so more runners mostly
	// means bigger groups: a step spends most of its time waiting for a group's sync, and with 32 runners the
	// end-to-end bench fell behind at 1,500 records/s with the cores a third idle.
	Workers int
	// Lease is how long a claimed job is reserved for its runner (default 2 minutes). A job claimed ahead of
	// a free runner is reserved for up to a quarter more (at most 10 s), the time it may wait for one.
	Lease time.Duration
	// Poll is how often idle runners look for due jobs when nothing woke them (default 250 ms).
	Poll time.Duration
	// Gather is how long the claimer waits after a wake before it claims (default 10 ms), so that one claim
	// takes the jobs of every wake that came meanwhile; see claim.
	Gather time.Duration
	// ReplaceAfter is how long a batch transaction may stay unconfirmed before it is replaced with higher
	// fees (default 3 minutes).
	ReplaceAfter time.Duration
	// Crash, when set, is called at each crash point of the pipeline with its name; tests use it to stop the
	// process there. Production leaves it nil.
	Crash  func(point string)
	Logger *slog.Logger
	// Observer is told about steps, batches, e-mails and blobs, for metrics; nil observes nothing.
	Observer seald.Observer
	Now      func() time.Time

	wakeOnce   sync.Once
	wakeCh     chan struct{}
	leaderWake chan struct{} // a record reached the anchoring queue (wakeLeader)
	// revokeSent is when this process last sent each pending revocation (revocationKey -> time.Time), so that
	// a transaction the node may have dropped is sent again, but not at every look.
	revokeSent sync.Map
	saver      *saver // nil: each step saves its own completion (a store without seald.JobsTogether)
}

func (p *Pipeline) crash(point string) {
	if p.Crash != nil {
		p.Crash(point)
	}
}

func (p *Pipeline) init() {
	p.wakeOnce.Do(func() {
		p.wakeCh = make(chan struct{}, 1)
		p.leaderWake = make(chan struct{}, 1)
		if p.Workers <= 0 {
			p.Workers = DefaultWorkers
		}
		if p.Lease <= 0 {
			p.Lease = DefaultLease
		}
		if p.Poll <= 0 {
			p.Poll = 250 * time.Millisecond
		}
		if p.Gather <= 0 {
			p.Gather = DefaultGather
		}
		if p.ReplaceAfter <= 0 {
			p.ReplaceAfter = 3 * time.Minute
		}
		if p.Retry.MaxAttempts == 0 {
			p.Retry = DefaultRetry
		}
		if p.Anchor.MaxRecords <= 0 {
			p.Anchor.MaxRecords = DefaultAnchor.MaxRecords
		}
		if p.Anchor.MaxWait <= 0 {
			p.Anchor.MaxWait = DefaultAnchor.MaxWait
		}
		if p.Logger == nil {
			p.Logger = slog.New(slog.DiscardHandler)
		}
		if p.Observer == nil {
			p.Observer = nopObserver{}
		}
	})
}

// Wake tells idle runners that a job may be due. It never blocks.
func (p *Pipeline) Wake() {
	p.init()
	select {
	case p.wakeCh <- struct{}{}:
	default:
	}
}

func (p *Pipeline) now() time.Time {
	if p.Now != nil {
		return p.Now().UTC().Truncate(time.Millisecond)
	}
	return time.Now().UTC().Truncate(time.Millisecond)
}

// Run runs the job runners and anchor leaders, and the sweep at start (Sweep), until ctx is done, then
// waits for the steps in flight, and those of the jobs claimed for them, to finish. It returns nil on
// cancellation.
func (p *Pipeline) Run(ctx context.Context) error {
	p.init()
	var wg sync.WaitGroup
	for network, a := range p.Anchorers {
		wg.Go(func() { p.lead(ctx, network, a) })
	}
	// One token in free for each job the claimer may hold: one per runner, and as many again waiting in jobs
	// for a runner (see claim).
	jobs := make(chan claimedJob, p.Workers)
	free := make(chan struct{}, 2*p.Workers)
	for range cap(free) {
		free <- struct{}{}
	}
	p.saver = p.newSaver()
	var runners sync.WaitGroup
	for range p.Workers {
		runners.Go(func() {
			for c := range jobs {
				if waited := time.Since(c.at); waited > p.hold() {
					// Every runner was busy for longer than the lease has to spare: a step started now could
					// outlive it. The job is left to its lease, after which it is claimed again.
					p.Logger.Warn("claimed job waited too long for a runner; it runs when its lease ends",
						"job", c.job.Kind, "reference", c.job.Reference, "waited", waited)
				} else {
					// A step runs to its end even when shutdown begins, so that its effect is saved rather
					// than redone; WithoutCancel keeps the values of ctx.
					p.runJob(context.WithoutCancel(ctx), c.job)
				}
				free <- struct{}{}
			}
		})
	}
	if p.saver != nil {
		wg.Go(func() { p.saver.run(ctx) })
	}
	wg.Go(func() {
		// The saver ends once every runner has handed over its last completion.
		runners.Wait()
		if p.saver != nil {
			close(p.saver.in)
		}
	})
	wg.Go(func() { p.claim(ctx, jobs, free) })
	wg.Go(func() { p.sweepAtStart(ctx) })
	wg.Wait()
	return nil
}

// claimedJob is a job the claimer handed out, and when it was claimed.
type claimedJob struct {
	job *seald.Job
	at  time.Time
}

// hold is how long a job may wait for a runner after its claim. The claim leases it for Lease plus hold,
// so that a step started within hold still has its whole Lease (runJob's deadline) before the lease ends.
func (p *Pipeline) hold() time.Duration { return min(p.Lease/4, 10*time.Second) }

// claim leases due jobs and hands them to the runners: as many at once as it has tokens in free, one per
// job it may hold, which is one per runner and as many again waiting for a runner. One claim for many jobs,
// rather than one per runner, keeps the store's write transactions for the steps' results: claiming job by
// job was a third of them, and the busiest in the profile of the embedded pipeline. Claiming ahead of the
// runners keeps them from waiting for the claim: when each claimed only for idle runners, a runner waited
// for the claim's transaction (a group commit, as long as a step's own save) after every step, and the
// runners were idle nearly half the time when the end-to-end bench fell behind. A job waits for a runner
// about one step; its lease covers that wait (hold), and a job that waited longer is not run (runners).
//
// At moderate rates the claims, not the jobs, were the cost: every acceptance woke the claimer, which claimed
// its one store job, then claimed again and found nothing, two write transactions (one UPDATE per kind, and
// the records' read) per record and stage (issue #33). So after a wake the claimer gathers for Gather before
// it claims, taking in one claim what the wakes meanwhile made due, and a claim that took fewer jobs than it
// asked for is the last until the next wake or poll: it found every job that was due. A wake that comes during
// a claim is kept (wakeCh), so a job committed after the claim's read is claimed by the next one. Under load
// the claimer does not gather: it claims again as soon as a runner is free for as long as claims come back full.
func (p *Pipeline) claim(ctx context.Context, jobs chan<- claimedJob, free chan struct{}) {
	defer close(jobs)
	kinds := p.kinds()
	idle := time.NewTimer(0)
	defer idle.Stop()
	gather := time.NewTimer(0)
	defer gather.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-idle.C:
		case <-p.wakeCh:
			gather.Reset(p.Gather)
			select {
			case <-ctx.Done():
				return
			case <-gather.C:
			}
			// The wakes of the gathering are answered by the claim below: their jobs were committed before it.
			select {
			case <-p.wakeCh:
			default:
			}
		}
		for ctx.Err() == nil {
			// Wait for one token, then take every other one free.
			select {
			case <-ctx.Done():
				return
			case <-free:
			}
			n := 1
		more:
			for n < cap(free) {
				select {
				case <-free:
					n++
				default:
					break more
				}
			}
			at := time.Now() // the lease begins after this
			claimed, err := p.Store.ClaimJobs(ctx, kinds, n, p.now(), p.Lease+p.hold())
			if err != nil && ctx.Err() == nil {
				p.Logger.Error("claim jobs", "err", err)
			}
			for range n - len(claimed) {
				free <- struct{}{}
			}
			for _, j := range claimed {
				jobs <- claimedJob{job: j, at: at}
			}
			if len(claimed) < n {
				break // every due job is claimed
			}
		}
		idle.Reset(p.Poll)
	}
}

// kinds are the job kinds this process can run with the parts it has, in the order they are claimed: later
// stages first, so that a record already anchored goes on to COMPLETED while a backlog of store jobs waits,
// instead of waiting behind every store job accepted before it was anchored (claiming by run_at alone did
// that: nothing completed until intake stopped).
func (p *Pipeline) kinds() []string {
	k := []string{seald.JobFinish}
	if p.Mailer != nil {
		k = append(k, seald.JobNotify)
	}
	if p.Blobs != nil {
		k = append(k, seald.JobStore)
	}
	if _, keeps := p.Mailer.(seald.MailEraser); p.Blobs != nil || keeps {
		k = append(k, seald.JobErase)
	}
	return k
}

// errorTypeOf names the status record's error type for a failed step.
func errorTypeOf(kind string) string {
	switch kind {
	case seald.JobStore:
		return seald.ErrorTypeIPFS
	case seald.JobNotify:
		return seald.ErrorTypeEmail
	case seald.JobFinish:
		return seald.ErrorTypeInternal
	}
	return seald.ErrorTypeBlockchain
}

func (p *Pipeline) runJob(ctx context.Context, j *seald.Job) {
	stepCtx, cancel := context.WithTimeout(ctx, p.Lease-time.Second)
	defer cancel()
	start := time.Now()
	r, err := p.record(stepCtx, j)
	if err == nil {
		err = p.step(context.WithValue(stepCtx, stepStart{}, start), j, r)
	}
	if errors.Is(err, errSaving) {
		return // the saver ends the step
	}
	waiting := errors.Is(err, errNotAnchored) || errors.Is(err, errRevocationSent) || errors.Is(err, errNotStored)
	if !waiting {
		p.Observer.StepDone(stepName(j.Kind), time.Since(start), err)
	}
	if err == nil {
		return
	}
	if waiting {
		// Waiting is not a fault: keep whatever the record shows and look again later.
		j.RunAt = p.now().Add(p.Anchor.MaxWait)
		if errors.Is(err, errRevocationSent) {
			j.RunAt = p.now().Add(min(p.Anchor.MaxWait, p.Poll))
		}
		if rerr := p.saveRetry(ctx, j, r.ErrorType, r.ErrorMessage); rerr != nil {
			p.Logger.Error("save retry", "job", j.Kind, "reference", j.Reference, "err", rerr)
		}
		return
	}
	p.fail(ctx, j, r, errorTypeOf(j.Kind), err)
}

// record is the job's record: the one the claim read with it (Job.Record), which is older than a read here
// only by the job's wait for a runner (about one step, see claim), and every step's save holds only while
// the record is in the state the step saw (RecordUpdate.When); or, for a job that came without it, a read.
// The record is taken from the job, so that a job run again never runs on the record of an earlier claim.
func (p *Pipeline) record(ctx context.Context, j *seald.Job) (*seald.Record, error) {
	if r := j.Record; r != nil {
		j.Record = nil
		return r, nil
	}
	return p.Store.Record(ctx, j.Reference)
}

// payload is the store job's payload: the one the claim read with it (Job.Payload), or a read when it came
// without one. Like record, it is taken from the job.
func (p *Pipeline) payload(ctx context.Context, j *seald.Job) ([]byte, error) {
	if b := j.Payload; b != nil {
		j.Payload = nil
		return b, nil
	}
	return p.Store.Payload(ctx, j.Reference)
}

// fail retries a failed job later, or ends it when the fault is permanent or retries are exhausted.
func (p *Pipeline) fail(ctx context.Context, j *seald.Job, r *seald.Record, errType string, err error) {
	msg := err.Error()
	if len(msg) > 1000 {
		msg = msg[:1000]
	}
	j.Attempts++
	j.LastError = msg
	if j.FailingSince.IsZero() {
		j.FailingSince = p.now()
	}
	log := p.Logger.With("job", j.Kind, "reference", j.Reference, "attempt", j.Attempts)
	if stubborn(j.Kind) {
		// A revocation or an erasure that gave up would leave the record saying REVOKED, or erased, while
		// the chain or IPFS says otherwise, for ever: these jobs retry at the capped backoff for as long as
		// it takes, and seald_jobs_oldest_overdue_seconds shows how long the oldest has been failing.
		j.RunAt = p.now().Add(p.Retry.Delay(j.Attempts))
		if seald.IsPermanent(err) || j.Attempts >= p.Retry.MaxAttempts {
			log.Error("step keeps failing; it is retried until it succeeds", "err", err, "failing_since", j.FailingSince, "at", j.RunAt)
		} else {
			log.Warn("step failed; will retry", "err", err, "at", j.RunAt)
		}
		if rerr := p.saveRetry(ctx, j, errType, msg); rerr != nil {
			log.Error("save retry", "err", rerr)
		}
		return
	}
	if seald.IsPermanent(err) || j.Attempts >= p.Retry.MaxAttempts {
		state := failedState(j, r)
		log.Error("step failed for good", "err", err)
		var ev *seald.Event
		if state == seald.StateFailed && r != nil && r.State != seald.StateFailed {
			failed := *r
			failed.State, failed.ErrorType, failed.ErrorMessage = seald.StateFailed, errType, msg
			ev = seald.NewEvent(seald.EventRecordFailed, &failed, p.now(), nil)
		}
		if ferr := p.Store.FailJob(ctx, j, state, errType, msg, ev, p.now()); ferr != nil {
			log.Error("save failed step", "err", ferr)
		}
		return
	}
	j.RunAt = p.now().Add(p.Retry.Delay(j.Attempts))
	log.Warn("step failed; will retry", "err", err, "at", j.RunAt)
	if rerr := p.saveRetry(ctx, j, errType, msg); rerr != nil {
		log.Error("save retry", "err", rerr)
	}
}

// failedState is the state a job that failed for good leaves its record in: FAILED when its step makes the
// seal and the lifecycle lets the record fail from where it is (a record not read is failed as told); none
// otherwise, for a failed signature, on-chain revocation or deletion does not undo the seal.
func failedState(j *seald.Job, r *seald.Record) seald.State {
	if j.Kind == seald.JobFinish || j.Kind == seald.JobErase || isRevoke(j.Kind) {
		return ""
	}
	if r == nil {
		return seald.StateFailed
	}
	to, err := seald.Next(r.State, seald.StepFailed)
	if err != nil {
		return ""
	}
	return to
}

// advance is the update of step s on r, by the lifecycle; a step the lifecycle refuses from r's state is a
// fault of the program or the data, never fixed by retrying.
func advance(r *seald.Record, s seald.Step) (*seald.RecordUpdate, error) {
	u, err := seald.Advance(r.State, s)
	if err != nil {
		return nil, seald.Permanent(err)
	}
	return u, nil
}

// stubborn tells the job kinds that never give up: the on-chain revocation and the deletion of an erased
// record's copy, each the truth behind a status the record already shows.
func stubborn(kind string) bool {
	return kind == seald.JobErase || isRevoke(kind)
}

// stepName is a job kind as a metrics label: revocations of every network are one step, "revoke".
func stepName(kind string) string {
	if isRevoke(kind) {
		return seald.JobRevoke
	}
	return kind
}

// save saves a step's effect, waiting out a store that is unavailable (a database restarting) within the
// step's deadline instead of failing the step: the effect is done (an envelope added, an e-mail sent), and
// a failed step would do it again, which for an e-mail means a duplicate. Other errors return at once.
func (p *Pipeline) save(ctx context.Context, fn func() error) error {
	delay := 100 * time.Millisecond
	for {
		err := fn()
		if err == nil || seald.ErrorCode(err) != seald.EUNAVAILABLE {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// saveRetry records a failed attempt, waiting out an unavailable store for up to a lease: a retry that is not
// saved leaves the job claimed until its lease expires.
func (p *Pipeline) saveRetry(ctx context.Context, j *seald.Job, errType, msg string) error {
	ctx, cancel := context.WithTimeout(ctx, p.Lease)
	defer cancel()
	return p.save(ctx, func() error { return p.Store.RetryJob(ctx, j, errType, msg) })
}

func isRevoke(kind string) bool {
	return len(kind) > len(seald.JobRevoke) && kind[:len(seald.JobRevoke)+1] == seald.JobRevoke+":"
}

func (p *Pipeline) step(ctx context.Context, j *seald.Job, r *seald.Record) error {
	switch j.Kind {
	case seald.JobStore:
		return p.store(ctx, j, r)
	case seald.JobNotify:
		return p.notify(ctx, j, r)
	case seald.JobFinish:
		return p.finish(ctx, j, r)
	case seald.JobErase:
		return p.erase(ctx, j, r)
	}
	if isRevoke(j.Kind) {
		return p.revoke(ctx, j, r)
	}
	return seald.Permanent(fmt.Errorf("unknown job kind %q", j.Kind))
}

// store encrypts the canonical data and puts the envelope into IPFS. A crash after the put and before the
// save puts a second envelope on the retry (a fresh data key gives it another CID); the first is an
// unreferenced blob, never a second record.
func (p *Pipeline) store(ctx context.Context, j *seald.Job, r *seald.Record) error {
	if r.Erased() {
		// Erased before it was stored: nothing goes into IPFS, and the record goes on to be anchored.
		u, err := advance(r, seald.StepStored)
		if err != nil {
			return err
		}
		u.ClearError, u.At = true, p.now()
		return p.complete(ctx, p.completion(ctx, j, r, u, true, p.wakeLeader))
	}
	u, err := advance(r, seald.StepStored)
	if err != nil {
		return err
	}
	env, err := p.payload(ctx, j)
	if err != nil {
		return err
	}
	if !seald.SealedPayload(env) { // kept by an earlier version, in the clear
		if env, err = p.Secrets.SealEnvelope(r.Reference, env); err != nil {
			return err
		}
	} else if err := p.disclose(r, env, u); err != nil {
		return err
	}
	cid, err := p.Blobs.Put(ctx, env)
	if err != nil {
		return err
	}
	p.Observer.BlobStored(len(env))
	p.crash(seald.CrashAfterIPFSAdd)
	u.ClearError, u.CID, u.EncryptedFile, u.At = true, cid, "ipfs://"+cid, p.now()
	return p.complete(ctx, p.completion(ctx, j, r, u, true, p.wakeLeader))
}

// stepStart is the context key of the time runJob started a step, for the metrics of a step the saver ends.
type stepStart struct{}

// completion is the completion of step j on record r saving u (dropping its payload when drop), saved alone
// as CompleteJob with the save's waits (save) when the saver does not save it; saved, when not nil, runs
// once it is saved.
func (p *Pipeline) completion(ctx context.Context, j *seald.Job, r *seald.Record, u *seald.RecordUpdate, drop bool, saved func()) *completion {
	start, _ := ctx.Value(stepStart{}).(time.Time)
	return &completion{Completion: seald.Completion{Job: j, Update: u, DropPayload: drop}, r: r, start: start,
		alone: func(ctx context.Context) error {
			return p.save(ctx, func() error { return p.Store.CompleteJob(ctx, j, u, drop) })
		}, saved: saved}
}

// errNotStored postpones the deletion of an erased record's copy while its store step may still be putting it.
var errNotStored = errors.New("the erased record's store step has not run yet; its copy is deleted after it")

// erase deletes what is left of an erased record: its stored copy, its messages in an outbox that keeps them
// (seald.MailEraser), and the bytes the database's files still hold (a store with Scrub), then sends the
// record.erased event. A store step that read the record before its erasure may still put the envelope and
// save its CID, so while the record is PENDING the job waits for it; after that, either a CID is saved
// (deleted here) or the store step saw the erasure and put nothing. Every part is idempotent: a crash or a
// failure only runs it again.
func (p *Pipeline) erase(ctx context.Context, j *seald.Job, r *seald.Record) error {
	if r.State == seald.StatePending {
		return errNotStored
	}
	// The erasure is committed and the copy not deleted yet: the service passes this point after its commit
	// too, but a runner can take the job first, and a crash test that stops there must find the copy.
	p.crash(seald.CrashAfterEraseSave)
	if r.CID != "" && p.Blobs != nil {
		if err := p.Blobs.Delete(ctx, r.CID); err != nil {
			return err
		}
		p.crash(seald.CrashAfterBlobDelete)
	}
	if me, ok := p.Mailer.(seald.MailEraser); ok && r.IsEmail {
		if err := me.EraseMail(ctx, r.Reference); err != nil {
			return err
		}
	}
	if sc, ok := p.Store.(scrubber); ok {
		if err := sc.Scrub(ctx); err != nil {
			return err
		}
	}
	now := p.now()
	u := &seald.RecordUpdate{At: now, Event: seald.NewEvent(seald.EventRecordErased, r, now,
		map[string]string{"erased_at": r.ErasedAt.UTC().Format(time.RFC3339Nano)})}
	return p.save(ctx, func() error { return p.Store.CompleteJob(ctx, j, u, true) })
}

// scrubber is a store whose files may keep what an erasure overwrote until it is scrubbed (SQLite's
// write-ahead log); Scrub fails while it cannot be done yet.
type scrubber interface {
	Scrub(ctx context.Context) error
}

// completeSent saves the notify step's update u, ending job j (with next queued), after a message was sent:
// an outbox that keeps messages (seald.MailEraser) may have been given it after the erasure's job took the
// record's messages out (the record was erased while it was being sent), and then it must be taken out
// here, before the job ends, so that a crash only runs the step again. Rather than read the record again
// after every send, the save itself checks: it applies only while the record is not erased (Unerased), and
// when it does not apply (ECONFLICT, erased or moved on), the record is read to tell which, the message of
// an erased record is taken out, and the update is saved as it always was.
func (p *Pipeline) completeSent(ctx context.Context, j *seald.Job, u *seald.RecordUpdate, next ...*seald.Job) error {
	me, _ := p.Mailer.(seald.MailEraser)
	p.unerased(u)
	err := p.save(ctx, func() error { return p.Store.CompleteJob(ctx, j, u, false, next...) })
	if !u.Unerased || seald.ErrorCode(err) != seald.ECONFLICT {
		return err
	}
	r, rerr := p.Store.Record(ctx, j.Reference)
	if rerr != nil {
		return rerr
	}
	if !r.Erased() {
		return err
	}
	if err := me.EraseMail(ctx, j.Reference); err != nil {
		return err
	}
	u.Unerased = false
	return p.save(ctx, func() error { return p.Store.CompleteJob(ctx, j, u, false, next...) })
}

// notify sends the record's e-mail, then finishes the record (signature, COMPLETED) in the same transaction
// that ends the notify job, rather than in a finish job of its own: that saved a claim, a read and a write
// transaction per record. The finish job remains for when this process has no chain for the record's
// network (finish then fails and retries as before), and for jobs queued by an earlier version. The
// Message-ID is derived from the reference, so a resend after a crash between sending and saving is
// recognisable as the same message; the embedded outbox recognises it itself and does not write it again.
func (p *Pipeline) notify(ctx context.Context, j *seald.Job, r *seald.Record) error {
	u := &seald.RecordUpdate{When: r.State}
	if r.IsEmail && r.Mail != nil && r.MessageID == "" {
		sent, err := seald.Next(r.State, seald.StepMailed) // asked before the e-mail leaves, not after
		if err != nil {
			return seald.Permanent(err)
		}
		link := ""
		if p.Link != nil {
			link = p.Link(r.Reference)
		}
		data, withheld, err := p.mailData(ctx, r)
		if err != nil {
			return err
		}
		m := &seald.Mail{
			Reference: r.Reference, To: r.Mail.To, Cc: r.Mail.Cc, Subject: r.Mail.Subject, Body: r.Mail.Body,
			HTML: r.Mail.HTML, Hash: r.Hash, VerificationLink: link, Business: r.Mail.Business, Project: r.Mail.Project,
			Since: r.CreatedAt, Data: data, Withheld: withheld,
		}
		if err := p.attachCredential(ctx, r, m); err != nil {
			return err
		}
		id, err := p.Mailer.Send(ctx, m)
		p.Observer.MailSent(err == nil)
		if err != nil {
			return err
		}
		p.crash(seald.CrashAfterMailSend)
		u.MessageID, u.State, u.ClearError = id, sent, true
		u.At = p.now()
	}
	start := time.Now()
	var next []*seald.Job
	var saved func()
	if err := p.sign(r, u); err != nil {
		next = []*seald.Job{{Kind: seald.JobFinish, Reference: r.Reference, RunAt: p.now()}}
	} else {
		saved = func() { p.Observer.StepDone(seald.JobFinish, time.Since(start), nil) }
	}
	p.unerased(u)
	c := p.completion(ctx, j, r, u, false, saved)
	c.Next = next
	c.alone = func(ctx context.Context) error { return p.completeSent(ctx, j, u, next...) }
	return p.complete(ctx, c)
}

// unerased makes the notify step's update u apply only to a record not erased when the outbox keeps messages
// and u saves one that was sent (see completeSent).
func (p *Pipeline) unerased(u *seald.RecordUpdate) {
	_, keeps := p.Mailer.(seald.MailEraser)
	u.Unerased = keeps && u.MessageID != ""
}

// finish signs the record's proof digest with the service key and marks the record COMPLETED.
func (p *Pipeline) finish(ctx context.Context, j *seald.Job, r *seald.Record) error {
	u := &seald.RecordUpdate{When: r.State}
	if err := p.sign(r, u); err != nil {
		return err
	}
	return p.complete(ctx, p.completion(ctx, j, r, u, false, nil))
}

// sign signs the record's proof digest with the service key and marks it COMPLETED when the lifecycle lets
// it (a FAILED record stays FAILED), in u only; it fails, leaving u as it was, when this process has no chain for the record's network.
func (p *Pipeline) sign(r *seald.Record, u *seald.RecordUpdate) error {
	a, ok := p.Anchorers[r.Network]
	if !ok {
		return fmt.Errorf("no chain configured for %s", r.Network)
	}
	ch := a.Chain()
	// Version 2, as before issuer blocks: the record's stored signature keeps its meaning (issue 41).
	pr := &proof.Bundle{Version: 2, Reference: r.Reference, Hash: r.Hash, CID: r.CID, Network: r.Network,
		ChainID: ch.ChainID, ChainName: ch.Name(), Contract: ch.Contract, TokenID: strconv.FormatUint(r.TokenID, 10)}
	pr.Sign(p.Secrets)
	u.Signature, u.ClearError, u.At = pr.Signature, true, p.now()
	if to, err := seald.Next(r.State, seald.StepCompleted); err == nil {
		u.State = to
		done := *r
		done.State, done.ErrorType, done.ErrorMessage = to, "", ""
		u.Event = seald.NewEvent(seald.EventRecordCompleted, &done, u.At, nil)
	}
	return nil
}

// nopObserver is the Observer of a Pipeline without one.
type nopObserver struct{}

func (nopObserver) StepDone(string, time.Duration, error) {}
func (nopObserver) BatchAnchored(string, int, uint64)     {}
func (nopObserver) BatchFailed(string, int)               {}
func (nopObserver) MailSent(bool)                         {}
func (nopObserver) BlobStored(int)                        {}
func (nopObserver) Leading(string, bool)                  {}
