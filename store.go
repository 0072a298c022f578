package seald

import (
	"context"
	"time"
)

// Job kinds of the pipeline. Anchoring is not a job: the anchor leader of each network takes the records
// waiting in IPFS_STORED in batches.
const (
	JobStore  = "store"  // encrypt the canonical data, put it into IPFS
	JobNotify = "notify" // send the e-mail
	JobFinish = "finish" // sign the proof digest, mark COMPLETED (notify does it itself when it can)
	JobRevoke = "revoke" // record a revocation on the chain; the kind is "revoke:" + network (RevokeJob)
	JobErase  = "erase"  // delete an erased record's stored copy from IPFS
)

// RevokeJob is the kind of the revocation jobs of a network. They are run by that network's anchor leader,
// the only process that signs for it, so that revocations and batches never race for a nonce.
func RevokeJob(network string) string { return JobRevoke + ":" + network }

// Job is one durable step of a record's pipeline. It is stored in the same transaction as the change that
// makes it due, claimed with a lease, and deleted in the same transaction as the change it makes.
type Job struct {
	ID          int64
	Kind        string
	Reference   string
	Attempts    int       // failed runs so far
	RunAt       time.Time // not before
	LeasedUntil time.Time // zero when unclaimed
	LastError   string
	// FailingSince is when the job's first failed run ended; zero while it has not failed. It is kept
	// across retries, for the metric of the oldest failing job of each kind (Jobs.OldestFailing).
	FailingSince time.Time
	// Record is the job's record as ClaimJobs read it, in the claim's transaction, so that the runner the
	// job is handed to does not read it again (nil: not read with the job, e.g. a job made elsewhere, or
	// no such record; the runner then reads it). It is never stored.
	Record *Record
	// Payload is, for a store job claimed by ClaimJobs, the payload the record keeps for its store step,
	// read with Record (nil: not read with the job, or none is kept; the runner then reads it). It is
	// never stored.
	Payload []byte
}

// BatchState is where an anchoring batch is.
type BatchState string

// Batch states: the signed transaction is saved before it is sent (SIGNED), then SENT, then CONFIRMED once
// included with the configured confirmations.
const (
	BatchSigned    BatchState = "SIGNED"
	BatchSent      BatchState = "SENT"
	BatchConfirmed BatchState = "CONFIRMED"
	// BatchFailed: its transaction reverted on chain. It mints nothing; its records went back to the queue
	// and its token ids are given again.
	BatchFailed BatchState = "FAILED"
)

// Batch is one anchoring transaction and the consecutive token ids it mints.
type Batch struct {
	ID           int64
	Network      string
	FirstTokenID uint64
	Count        int
	Root         string
	Nonce        uint64
	TxHash       string   // the latest signed transaction
	TxHashes     []string // every transaction signed for this batch, the latest last (replacements)
	RawTx        []byte
	Attempt      int
	State        BatchState
	BlockNumber  uint64
	BlockHash    string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// BatchEntry places one record in a batch.
type BatchEntry struct {
	Reference  string
	TokenID    uint64
	Leaf       string
	MerklePath []string
	// DisclosurePath is the Merkle path of the record's disclosure leaf; nil when it has no commitment.
	DisclosurePath []string
}

// Lock is a lease on a named role (the anchor leader of a network) held by one process.
type Lock interface {
	// Lost is closed when the lock is no longer held (its connection died).
	Lost() <-chan struct{}
	// Epoch numbers this holding of the lock: each TryLock that takes the lock gets a higher one than every
	// holder before it, so a write fenced with it (Fence) is refused once another process has taken the
	// lock, even if this one has not noticed its loss yet (it was paused, or its network was cut).
	Epoch() int64
	// Release gives the lock up.
	Release()
}

// The stores: one small interface per noun. Implementations (package sqlite, package postgres) implement
// them all and only persist: every rule lives in Service and the pipeline. Methods that change several rows do
// it in one transaction. Lookups of something absent return an *Error with code ENOTFOUND. Consumers take
// only the ones they use, so a fake or a new backend for one part implements only that part.

// Tenants persists businesses, projects and their API keys.
type Tenants interface {
	// CreateBusiness inserts a business, its first project and the given keys in one transaction.
	CreateBusiness(ctx context.Context, b *Business, p *Project, keys ...*Key) error
	// CreateProject inserts a project of an existing business and its keys in one transaction.
	CreateProject(ctx context.Context, p *Project, keys ...*Key) error
	BusinessByName(ctx context.Context, name string) (*Business, error)
	Business(ctx context.Context, businessID string) (*Business, error)
	Project(ctx context.Context, projectID string) (*Project, error)
	// UpdateTenant writes the fields of ch that are set, and no other, in one transaction, and returns the
	// business and (with ch.ProjectID) the project as they are after it. ENOTFOUND for an unknown business or
	// a project that is not one of its own, ECONFLICT when another business has the name; on error nothing
	// is written.
	UpdateTenant(ctx context.Context, ch *TenantChange) (*Business, *Project, error)
	// SetProjectRetention saves how long a project's stored copies are kept (0: for ever); ENOTFOUND for an
	// unknown project.
	SetProjectRetention(ctx context.Context, projectID string, retain time.Duration) error
	// SetProjectRate saves a project's own request rate per API key; ENOTFOUND for an unknown project.
	SetProjectRate(ctx context.Context, projectID string, perSecond float64, burst int) error
	// CountBusinesses is used at first start to create the default tenant.
	CountBusinesses(ctx context.Context) (int, error)

	// CreateKey inserts a key; UpdateKey saves its expiry, revocation and sealed secret.
	CreateKey(ctx context.Context, k *Key) error
	UpdateKey(ctx context.Context, k *Key) error
	Key(ctx context.Context, id string) (*Key, error)
	KeyByDigest(ctx context.Context, digest string) (*Key, error)
	// Keys lists the keys of a business (all of them when businessID is empty).
	Keys(ctx context.Context, businessID string) ([]*Key, error)
}

// TenantChange is what one tenant update writes: the fields set (nil: left as it is) and nothing else, so
// that two updates of different fields at once both keep their change.
type TenantChange struct {
	BusinessID                       string
	Name, Description, Logo, Website *string
	// ProjectID is one of the business's projects, "" for none: its fields are left as they are.
	ProjectID                                    string
	ProjectName, ProjectDescription, ProjectLogo *string
	Retain                                       *time.Duration // 0: for ever
	AttachCredential                             *bool
}

// Records persists records, their canonical payloads and their audit trails.
type Records interface {
	// CreateRecord inserts a record, its canonical payload (kept until the store step has put it into IPFS)
	// and its first jobs in one transaction. A reference that exists is ECONFLICT.
	CreateRecord(ctx context.Context, r *Record, payload []byte, jobs ...*Job) error
	Record(ctx context.Context, reference string) (*Record, error)
	// RecordsByHash returns the records of a hash, newest first.
	RecordsByHash(ctx context.Context, hash string) ([]*Record, error)
	// RecordBrief is Record with only the fields of Record.Brief, for a verification: a third of its read
	// was scanning the rest.
	RecordBrief(ctx context.Context, reference string) (*Record, error)
	// RecordsByHashBrief is RecordsByHash with only the fields of Record.Brief.
	RecordsByHashBrief(ctx context.Context, hash string) ([]*Record, error)
	RecordByCID(ctx context.Context, cid string) (*Record, error)
	RecordByToken(ctx context.Context, network string, tokenID uint64) (*Record, error)
	// Payload returns the canonical data kept for the store step; ENOTFOUND once it has been dropped.
	Payload(ctx context.Context, reference string) ([]byte, error)

	// ChangeStatus moves a record from status from to c.To, appends c to the audit trail, saves c.Event (when
	// set) and inserts jobs, in one transaction; ECONFLICT if the record's status is no longer from.
	ChangeStatus(ctx context.Context, c *StatusChange, from Status, jobs ...*Job) error
	AuditTrail(ctx context.Context, reference string) ([]*StatusChange, error)
	// EraseRecord erases a record's data in one transaction: sets its erased_at to c.At, clears its data key
	// and password hash and makes it not downloadable, appends c (ActionErase; its From and To are set to
	// the record's status) to the audit trail and inserts jobs. A record already erased is left as it is
	// and erased is false; an unknown one is ENOTFOUND.
	EraseRecord(ctx context.Context, c *StatusChange, jobs ...*Job) (erased bool, err error)
	// RetentionDue returns up to limit references of records not erased yet whose project keeps copies
	// for a limited time (Project.Retain) and that were sealed longer than that before now, oldest first.
	RetentionDue(ctx context.Context, now time.Time, limit int) ([]string, error)
	// RevokedTokens returns up to limit records of a network whose status is REVOKED and whose batch is
	// CONFIRMED, with a token id above after, by token id: the pipeline's sweep at start checks each
	// revocation on chain.
	RevokedTokens(ctx context.Context, network string, after uint64, limit int) ([]*Record, error)
	// ErasedCopies returns up to limit erased records that hold the CID of a stored copy, with a reference
	// above after, by reference: the pipeline's sweep at start deletes any copy still stored.
	ErasedCopies(ctx context.Context, after string, limit int) ([]*Record, error)
	// CountWaiting counts the records in each state of the pipeline that is not final (WaitingStates),
	// with the creation time of the oldest; a state with none is absent.
	CountWaiting(ctx context.Context) (map[State]Waiting, error)
	// CountWaitingByNetwork counts the records in the states of WaitingStates by network; a network with
	// none is absent. The backlog bound is per network, so a stalled chain refuses only its own seals.
	CountWaitingByNetwork(ctx context.Context) (map[string]int, error)
	// CountWaitingByProject counts the records in the states of WaitingStates by project id; a project with
	// none is absent.
	CountWaitingByProject(ctx context.Context) (map[string]int, error)
	// ListRecords returns up to q.Limit records of q.ProjectID that match q's filters, newest first (by
	// creation, ties newest inserted first), starting after the record q.After (keyset pagination: the cost
	// of a page does not grow with how far it is from the first). An After that is not a record of the
	// project gives an empty page. None is an empty page, not an error.
	// The date filters bound the walk of the project's records, so they cost nothing. The status and state
	// filters do not: with either set, the page examines at most q.Walk records (ListWalk when not positive)
	// after q.After (and within the dates), and returns the matches among them. When those are fewer than
	// q.Limit and more records lie beyond the ones examined, the page's Resume is the last record examined:
	// the next page starts after it (RecordPage). So a filter that matches few records costs a bounded
	// walk, and following Resume finds every match, once.
	ListRecords(ctx context.Context, q RecordQuery) (*RecordPage, error)
	// CountProjectRecords counts a project's records by status and by pipeline state, and, for each i, those
	// created in [bounds[i], bounds[i+1]) (PerDay has len(bounds)-1 entries; none when bounds has fewer than
	// two).
	CountProjectRecords(ctx context.Context, projectID string, bounds []time.Time) (*RecordCounts, error)
	// AnchorLatencies returns, for each i, how long after their creation the records of projectID that
	// reached ANCHORED in [bounds[i], bounds[i+1]) took to reach it, for the first perInterval of them by
	// that time (len(bounds)-1 lists, each in that order; none when bounds has fewer than two). Records
	// with no recorded ANCHORED time (Record.Reached) are not counted. It reads at most perInterval rows
	// of an index per interval, however many records the project has.
	AnchorLatencies(ctx context.Context, projectID string, bounds []time.Time, perInterval int) ([][]time.Duration, error)
}

// RecordCounts are a project's records counted (Records.CountProjectRecords).
type RecordCounts struct {
	ByStatus map[Status]int
	ByState  map[State]int
	PerDay   []int
}

// RecordQuery selects a page of a project's records (Records.ListRecords).
type RecordQuery struct {
	ProjectID string
	Status    Status // "" for any
	State     State  // "" for any
	// Since and Until bound the creation time: Since <= created_at < Until; a zero time leaves that side open.
	Since, Until time.Time
	// After is the reference of the last record of the previous page (or its Resume); "" for the first page.
	After string
	Limit int
	// Walk bounds how many records a page filtered by status or state examines; ListWalk when not positive.
	Walk int
}

// RecordPage is a page of a project's records (Records.ListRecords).
type RecordPage struct {
	Records []*Record
	// Resume, when not "", is the reference of the last record (the oldest) that a page filtered by status
	// or state examined before it stopped at its bound (RecordQuery.Walk), with fewer matches than asked
	// for: more records lie beyond it, unexamined. Ask again with it as After to search further back.
	// ResumeCreated is its creation time.
	Resume        string
	ResumeCreated time.Time
}

// Jobs persists the pipeline's durable jobs.
type Jobs interface {
	// ClaimJobs leases up to limit due jobs of the given kinds until now+lease and returns them. Several
	// processes may claim at once; a job is given to one of them. The kinds are in priority order: every
	// due job of kinds[0] comes before any of kinds[1], and so on; within a kind, the earliest run_at (then
	// the oldest job) first. The jobs are returned in that order, each with its Record (and, for a store
	// job, its Payload) read in the claim's transaction.
	ClaimJobs(ctx context.Context, kinds []string, limit int, now time.Time, lease time.Duration) ([]*Job, error)
	// CompleteJob, in one transaction: applies u to the job's record (when u is not nil), drops its payload
	// when dropPayload, deletes the job and inserts the next jobs. ECONFLICT, and nothing changes, when the
	// job is no longer the caller's or the record is no longer in u.When.
	CompleteJob(ctx context.Context, j *Job, u *RecordUpdate, dropPayload bool, next ...*Job) error
	// RetryJob saves the job's attempts, last error, FailingSince and next run, releases its lease, and sets
	// the record's error type and message, in one transaction.
	RetryJob(ctx context.Context, j *Job, errorType, errorMessage string) error
	// FailJob deletes the job and sets the record's error type and message and, unless state is empty, its
	// state (FAILED) and the time it reached it (now, Record.Reached), and saves ev (the webhook event of the
	// failure) unless it is nil, in one transaction.
	FailJob(ctx context.Context, j *Job, state State, errorType, errorMessage string, ev *Event, now time.Time) error
	// ReleaseLeases frees every job and webhook delivery lease (at the start of the only process on an
	// embedded store).
	ReleaseLeases(ctx context.Context) error
	// CountJobs counts the jobs of each kind, for metrics and tests.
	CountJobs(ctx context.Context) (map[string]int, error)
	// OldestFailing returns, for each kind with a job that has failed at least once, the earliest
	// FailingSince of its jobs: how long the oldest overdue job of the kind has been failing.
	OldestFailing(ctx context.Context) (map[string]time.Time, error)
	// RequeueJob inserts j unless its record already has a job of its kind; queued says which.
	RequeueJob(ctx context.Context, j *Job) (queued bool, err error)
}

// Completion is one job's CompleteJob, for a store that completes jobs together (JobsTogether).
type Completion struct {
	Job         *Job
	Update      *RecordUpdate
	DropPayload bool
	Next        []*Job
}

// JobsTogether is a store that saves the completions of many jobs at once. The pipeline uses it when its
// store has it, so that the steps of a group of records end in one transaction rather than one each; a
// store without it (a fault-injecting wrapper in a test) has each job completed on its own.
type JobsTogether interface {
	// CompleteJobs does the CompleteJob of each completion and returns one error per completion: all in one
	// transaction when every one of them applies, otherwise each in a transaction of its own, so that each
	// gets its own outcome and a job that is no longer the caller's keeps none of the others from being saved.
	CompleteJobs(ctx context.Context, cs []Completion) []error
}

// RecordUpdate is what one pipeline step changes in a record: only the fields the step owns, and only while
// the record is still in the state the step read. Steps of one record may run at once (a revocation on the
// leader while a worker sends the e-mail), so none writes the record back whole: each sets its own fields,
// and a record that moved on since the step read it refuses the update (ECONFLICT), which the pipeline
// retries on what is there now. Zero fields are left as they are.
type RecordUpdate struct {
	// When is the state the step read; the update applies only while the record is still in it ("" in any).
	When State
	// Unerased makes the update apply only while the record is not erased; an erased record is ECONFLICT.
	Unerased bool
	// State is the new state ("" unchanged); ClearError empties the error type and message.
	State      State
	ClearError bool
	// CID and EncryptedFile: the store step's envelope in IPFS.
	CID, EncryptedFile string
	// Disclosure and DisclosureBlind: the store step's selective-disclosure commitment (Record.Disclosure).
	Disclosure, DisclosureBlind string
	// MessageID: the notify step's e-mail.
	MessageID string
	// Signature: the finish step's signature of the proof digest (IsSigned follows).
	Signature string
	// RevokedOnChain: the revoke step's transaction was confirmed.
	RevokedOnChain bool
	// At is the record's new updated_at, and the time it reached State (Record.Reached) when State is set,
	// and EMAIL_SENT when MessageID is set (the notify step saves its e-mail and the completion together).
	At time.Time
	// Event, when set, is the webhook event the update causes, saved in the same transaction.
	Event *Event
}

// Transition is a move of records from one pipeline state to the next, which the pipeline decides and a
// store applies as told: records in From move to To, their error cleared when ClearError, each given a job
// of kind Next due at once (none when Next is empty). The time the store is given is when they reached To
// (Record.Reached); a move back (FailBatch) also forgets when they reached From, which they left.
type Transition struct {
	From, To   State
	ClearError bool
	Next       string
	// Fence, when set, makes the move apply only while Fence.Epoch is the latest epoch of the lock
	// Fence.Name; otherwise it is ECONFLICT and nothing changes.
	Fence *Fence
}

// Fence is the leadership a write is made under: the name of a lock and the epoch its holder was given.
type Fence struct {
	Name  string
	Epoch int64
}

// Batches persists the anchoring batches and the records' places in them.
type Batches interface {
	// AnchorQueue returns up to limit records of a network waiting in state with no batch, oldest first.
	AnchorQueue(ctx context.Context, network string, state State, limit int) ([]*Record, error)
	// NextTokenID returns the token id after the last one any batch of the network that is not FAILED
	// holds (1 when none).
	NextTokenID(ctx context.Context, network string) (uint64, error)
	// CreateBatch saves a signed batch and places its records, moving them as t says, in one transaction.
	// It fails with ECONFLICT if any record is no longer waiting in t.From with no batch.
	CreateBatch(ctx context.Context, b *Batch, entries []BatchEntry, t Transition, now time.Time) error
	// UpdateBatch saves a batch's state, transaction and block, only while fence (when not nil) is the
	// latest epoch of its lock: otherwise ECONFLICT and nothing changes, so a leader woken from a pause
	// cannot overwrite what its successor saved (a replacement's tx_hashes).
	UpdateBatch(ctx context.Context, b *Batch, fence *Fence) error
	// ConfirmBatch saves the batch as CONFIRMED (with its block and transaction) and moves its records in
	// t.From as t says, in one transaction; ECONFLICT when the batch is already CONFIRMED.
	ConfirmBatch(ctx context.Context, b *Batch, t Transition, now time.Time) error
	// FailBatch saves the batch as FAILED and takes its records in t.From out of it (no batch, token id,
	// leaf or path), moving them as t says with the error given, in one transaction; ECONFLICT when the
	// batch is already CONFIRMED or FAILED.
	FailBatch(ctx context.Context, b *Batch, t Transition, errorType, errorMessage string, now time.Time) error
	// OpenBatches returns the batches of a network that are neither CONFIRMED nor FAILED, oldest first.
	OpenBatches(ctx context.Context, network string) ([]*Batch, error)
	Batch(ctx context.Context, id int64) (*Batch, error)
	// BatchesFrom returns the batches of a network, in any state but FAILED, that hold token ids >= tokenID, by first
	// token id: after the chain lost its last blocks, these are re-sent.
	BatchesFrom(ctx context.Context, network string, tokenID uint64) ([]*Batch, error)
	// SetAnchorError records a chain fault on the given records (state unchanged).
	SetAnchorError(ctx context.Context, references []string, errorType, errorMessage string, now time.Time) error
	// SetBatchError records a chain fault on every record of a batch (state unchanged).
	SetBatchError(ctx context.Context, batchID int64, errorType, errorMessage string, now time.Time) error
}

// Revocation is the on-chain revocation of one token: its signed transaction, saved before it is sent, and
// every replacement of it. Its State is SIGNED, SENT, CONFIRMED, or FAILED when the transaction reverted.
type Revocation struct {
	Network   string
	TokenID   uint64
	Reference string
	Nonce     uint64
	TxHash    string   // the latest signed transaction
	TxHashes  []string // every signed attempt, oldest first; any of them may be the one included
	RawTx     []byte   // the latest signed transaction
	Attempt   int
	State     BatchState
	CreatedAt time.Time
	UpdatedAt time.Time // when the latest transaction was signed or its state changed
}

// Revocations persists the revocation transactions of tokens.
type Revocations interface {
	// Revocation returns the revocation of a token; ENOTFOUND when there is none.
	Revocation(ctx context.Context, network string, tokenID uint64) (*Revocation, error)
	// SaveRevocation inserts the revocation of its token or replaces the one saved, only while fence (when
	// not nil) is the latest epoch of its lock; otherwise ECONFLICT and nothing changes.
	SaveRevocation(ctx context.Context, rv *Revocation, fence *Fence) error
}

// Locks hands out the named locks that make one process the anchor leader of a network.
type Locks interface {
	// TryLock takes the named lock if no other process holds it; nil and no error when another does.
	TryLock(ctx context.Context, name string) (Lock, error)
	// CheckFence is ECONFLICT when f.Epoch is no longer the latest epoch of the lock f.Name: another process
	// has taken it. A leader calls it before each broadcast, so that one that lost its lock unaware (paused,
	// cut off) sends nothing more under it.
	CheckFence(ctx context.Context, f Fence) error
}

// Store is every store at once: what a backend implements and what cmd/seald opens and hands out.
type Store interface {
	Tenants
	Records
	Jobs
	Batches
	BatchManifests
	Revocations
	Locks
	Webhooks
	Identities
	CredentialStatuses
	MailCredentialStore
	Close() error
}

// Waiting is how many records wait in one state of the pipeline, and since when the oldest was sealed.
type Waiting struct {
	Count  int
	Oldest time.Time
}

// WaitingStates are the states of the pipeline that are not final, in pipeline order.
var WaitingStates = []State{StatePending, StateIPFSStored, StateAnchorSubmitted, StateAnchored, StateEmailSent}
