package seald

import "time"

// State is where a record is in its pipeline (the `state` of the status record).
type State string

// Pipeline states, in order; FAILED ends a pipeline whose step failed for good.
const (
	StatePending         State = "PENDING"
	StateIPFSStored      State = "IPFS_STORED"
	StateAnchorSubmitted State = "ANCHOR_SUBMITTED"
	StateAnchored        State = "ANCHORED"
	StateEmailSent       State = "EMAIL_SENT"
	StateCompleted       State = "COMPLETED"
	StateFailed          State = "FAILED"
)

// Status is the owner-controlled standing of a record.
type Status string

// Record statuses. ACTIVE and SUSPENDED may be swapped; REVOKED is final.
const (
	StatusActive    Status = "ACTIVE"
	StatusSuspended Status = "SUSPENDED"
	StatusRevoked   Status = "REVOKED"
)

// Error types of the status record; empty when there is no error.
const (
	ErrorTypeValidation = "VALIDATION_ERROR"
	ErrorTypeIPFS       = "IPFS_ERROR"
	ErrorTypeBlockchain = "BLOCKCHAIN_ERROR"
	ErrorTypeEmail      = "EMAIL_ERROR"
	ErrorTypeInternal   = "INTERNAL_ERROR"
)

// Pipelines.
const (
	PipelinePolygon = "ipfs/sm-polygon/email"
	PipelineEOS     = "ipfs/sm-eos/email"
	PipelineOVI     = "ovi"
)

// Reference prefixes.
const (
	PrefixAuthentication = "D-"
	PrefixGenerator      = "I-"
)

// MailRequest is what the caller asked to be sent when the record is sealed.
type MailRequest struct {
	To      []string `json:"to"`
	Cc      []string `json:"cc,omitempty"`
	Subject string   `json:"subject"`
	Body    string   `json:"body"`
	HTML    bool     `json:"html"`
	// Business and Project name who sealed the record, so that the message says it.
	Business string `json:"business,omitempty"`
	Project  string `json:"project,omitempty"`
	// AttachCredential is the project's attach_credential setting when the record was sealed: the message
	// carries the record's W3C VC 2.0 credential. Taken then, so that every attempt of the notify step sends
	// the same message whatever the setting became since.
	AttachCredential bool `json:"attach_credential,omitempty"`
}

// Record is one sealed JSON object and everything the pipeline learned about it.
type Record struct {
	Reference  string
	Pipeline   string
	BusinessID string // public ids of the owner
	ProjectID  string
	Network    string
	Hash       string // lowercase hex SHA-256 of the canonical data
	MimeType   string
	Privacy    Privacy
	Status     Status
	State      State

	ErrorType    string
	ErrorMessage string // empty when there is no error

	CID           string
	EncryptedFile string // ipfs://{cid}

	TokenID    uint64 // 0 until anchored (token ids start at 1)
	BatchID    int64
	Leaf       string   // 0x hex Merkle leaf binding token id and hash
	MerklePath []string // 0x hex nodes, leaf to root
	// Disclosure is the lowercase hex SHA-256 of the record's canonical SD payload (disclosure.go), anchored
	// as the record's second Merkle leaf; empty for records sealed before selective disclosure (issue 35).
	Disclosure string
	// DisclosureBlind is the lowercase hex blinding node paired with the record's content leaf in its batch's tree
	// (evm.BatchTree); empty with Disclosure.
	DisclosureBlind string
	// DisclosurePath is the Merkle path of the disclosure leaf, once anchored; nil without Disclosure.
	DisclosurePath []string
	// RevokedOnChain is set when a revocation transaction for the token has been included.
	RevokedOnChain bool

	IsEmail      bool
	IsEncrypted  bool
	IsSigned     bool
	HasPassword  bool
	Downloadable bool
	PasswordHash string // an encoded Argon2id hash; empty without a password
	// DataKey is the record's data key wrapped by the master key (secret.Keys.SealDetached), kept here and
	// not in the envelope on IPFS, so that erasing it makes every copy of the envelope undecryptable. Empty
	// for records sealed before issue 19 (their key is inside the envelope) and once erased.
	DataKey string
	// ErasedAt is when the record's data was erased (Service.Erase); zero while it is kept.
	ErasedAt time.Time

	Mail      *MailRequest // nil when no e-mail is sent
	MessageID string       // the Message-ID of the sent notification
	OVI       string       // the encrypted reference, for generator records or when asked for
	Signature string       // base64 Ed25519 signature of the proof digest, once signed

	CreatedAt time.Time
	UpdatedAt time.Time
	// Reached is when the record reached each state of its pipeline after PENDING (which is CreatedAt).
	Reached StateTimes
}

// StateTimes are when a record reached the states of its pipeline after PENDING. A zero time is a state
// not reached, or reached before seald kept these times (migration 0010): such a time was never recorded
// and is never guessed. A state reached again (a batch that failed on chain sends its records back to
// IPFS_STORED) keeps its latest time.
type StateTimes struct {
	IPFSStored, AnchorSubmitted, Anchored, EmailSent, Completed, Failed time.Time
}

// ReachedAt is when the record reached st: CreatedAt for PENDING, a zero time when it is not recorded.
func (r *Record) ReachedAt(st State) time.Time {
	t := &r.Reached
	switch st {
	case StatePending:
		return r.CreatedAt
	case StateIPFSStored:
		return t.IPFSStored
	case StateAnchorSubmitted:
		return t.AnchorSubmitted
	case StateAnchored:
		return t.Anchored
	case StateEmailSent:
		return t.EmailSent
	case StateCompleted:
		return t.Completed
	case StateFailed:
		return t.Failed
	}
	return time.Time{}
}

// Milestone is one state of a record's pipeline timeline and when it was reached (zero: not recorded).
type Milestone struct {
	State State
	At    time.Time
}

// Timeline returns the states the record has reached, in pipeline order (FAILED last), each with its time.
// A state is on it when its time is recorded or when the record shows it passed it without one (a record
// sealed before the times were kept): it is in it or further on, or it holds what the state's step made
// (a CID for IPFS_STORED, a batch for ANCHOR_SUBMITTED, a token for ANCHORED, a sent e-mail for
// EMAIL_SENT). A record that sends no e-mail skips EMAIL_SENT.
func (r *Record) Timeline() []Milestone {
	cur := -1 // the index of the record's state in the pipeline; -1 when FAILED or unknown
	for i, st := range States[:len(States)-1] {
		if st == r.State {
			cur = i
		}
	}
	passed := map[State]bool{
		StatePending:         true,
		StateIPFSStored:      r.CID != "",
		StateAnchorSubmitted: r.BatchID != 0,
		StateAnchored:        r.Anchored(),
		StateEmailSent:       r.MessageID != "",
	}
	var out []Milestone
	for i, st := range States[:len(States)-1] {
		at := r.ReachedAt(st)
		if !at.IsZero() || passed[st] || st == r.State || i < cur && st != StateEmailSent {
			out = append(out, Milestone{State: st, At: at})
		}
	}
	if r.State == StateFailed {
		out = append(out, Milestone{State: StateFailed, At: r.Reached.Failed})
	}
	return out
}

// Anchored reports whether the record's token is minted: the record reached ANCHORED, or went on from it
// (a mail that failed for good leaves an anchored record FAILED with EMAIL_ERROR).
func (r *Record) Anchored() bool {
	switch r.State {
	case StateAnchored, StateEmailSent, StateCompleted:
		return true
	case StateFailed:
		return r.TokenID != 0 && r.ErrorType == ErrorTypeEmail
	}
	return false
}

// StatusChange is one entry of a record's append-only audit trail.
type StatusChange struct {
	ID        int64
	Reference string
	From      Status
	To        Status
	Actor     string // the key id or "cli"
	Reason    string
	At        time.Time
	// Action is what the entry records: ActionStatus (From to To) or ActionErase (the data was erased;
	// From and To are both the status it kept).
	Action string
	// Event, when set, is the webhook event of the change, saved in the same transaction (not read back).
	Event *Event
}

// Audit trail actions.
const (
	ActionStatus = "status"
	ActionErase  = "erase"
)

// Erased reports whether the record's data has been erased.
func (r *Record) Erased() bool { return !r.ErasedAt.IsZero() }

// Brief returns the fields of r a verification reads (Service.Verify without Lookup.Whole): those its
// answer shows, those that decide who may see it (visible) and those that choose among the records of one
// hash (pickSameHash). The stores' RecordBrief and RecordsByHashBrief read exactly these, leaving the Merkle
// path, the e-mail, the secrets and the state times unread.
func (r *Record) Brief() *Record {
	return &Record{Reference: r.Reference, Pipeline: r.Pipeline, BusinessID: r.BusinessID, ProjectID: r.ProjectID,
		Network: r.Network, Hash: r.Hash, MimeType: r.MimeType, Privacy: r.Privacy, Status: r.Status, State: r.State,
		ErrorType: r.ErrorType, CID: r.CID, EncryptedFile: r.EncryptedFile, TokenID: r.TokenID,
		RevokedOnChain: r.RevokedOnChain, IsEmail: r.IsEmail, IsEncrypted: r.IsEncrypted, IsSigned: r.IsSigned,
		HasPassword: r.HasPassword, Downloadable: r.Downloadable, ErasedAt: r.ErasedAt, CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt}
}
