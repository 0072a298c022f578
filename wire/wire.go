// Package wire holds the JSON bodies of seald's HTTP API, written once: package httpapi answers with them,
// package client reads them, and a test in httpapi checks every one against openapi.json, member for member.
// The members are the seed's, name for name; those marked "beyond the seed" are seald's additions
// (docs/api.md). It imports nothing but the standard library, so that a third party can use it without the
// service's dependencies.
package wire

import (
	"encoding/json"
	"fmt"
	"time"
)

// Verification is the data of the five verification operations (and of verification by encrypted
// reference).
type Verification struct {
	Owner              Owner      `json:"owner"`
	IsDataDownloadable bool       `json:"is_data_downloadable"`
	Blockchain         Blockchain `json:"blockchain"`
	IPFS               IPFS       `json:"ipfs"`
	Privacy            string     `json:"privacy"` // PUBLIC or PRIVATE
	Details            Details    `json:"details"`
	Status             string     `json:"status"` // ACTIVE, SUSPENDED or REVOKED
	Misc               Misc       `json:"misc"`
	// Proof is the offline proof bundle, asked for with IncludeProof; nil until the record is anchored.
	Proof *Proof `json:"proof,omitempty"`
	// RecordsWithHash (beyond the seed) is, on verification by hash or data, how many records visible to the
	// caller hold the hash, the one answered included; absent for the other lookups.
	RecordsWithHash int `json:"records_with_hash,omitempty"`
	// ErasedTime (beyond the seed) is when the record's data was erased (RFC 3339); absent while it is kept.
	ErasedTime string `json:"erased_time,omitempty"`
}

// Owner is the business and project that sealed a record.
type Owner struct {
	Business   Business `json:"business"`
	ProjectID  string   `json:"project_id"`
	Project    Project  `json:"project"`
	BusinessID string   `json:"business_id"`
}

// Business is the owner's business.
type Business struct {
	ID             string `json:"id"`
	BusinessID     string `json:"business_id"`
	Name           string `json:"name"`
	Description    string `json:"description"`
	Logo           string `json:"logo"`
	Website        string `json:"website"`
	DateRegistered string `json:"date_registered"` // RFC 3339, UTC, milliseconds
}

// Project is the owner's project.
type Project struct {
	ID          string `json:"id"`
	ProjectID   string `json:"project_id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Logo        string `json:"logo"`
	Privacy     string `json:"privacy"`
	BusinessID  string `json:"business_id"`
	// Retain (beyond the seed; only in the answer of the tenant update) is how long stored copies are kept:
	// "365d", or "forever".
	Retain string `json:"retain,omitempty"`
	// AttachCredential (beyond the seed; only in the answer of the tenant update) is whether the project's
	// e-mails carry each record's credential.
	AttachCredential *bool `json:"attach_credential,omitempty"`
}

// Blockchain is where a record is anchored.
type Blockchain struct {
	TokenID           string `json:"token_id"` // decimal; empty until anchored
	BlockchainNetwork string `json:"blockchain_network"`
	RevokedOnChain    bool   `json:"revoked_on_chain"` // beyond the seed
	// ChainName (beyond the seed) names the chain in words; for seald's embedded development chain it says so.
	ChainName string `json:"chain_name,omitempty"`
}

// IPFS is where the encrypted copy is stored.
type IPFS struct {
	IPFSGatewayLink string `json:"ipfs_gateway_link"`
	CID             string `json:"cid"`
}

// Details describe the record.
type Details struct {
	Reference     string `json:"reference"`
	Pipeline      string `json:"pipeline"`
	CreatedTime   string `json:"created_time"`
	UpdatedTime   string `json:"updated_time"`
	Mimetype      string `json:"mimetype"`
	EncryptedFile string `json:"encrypted_file"`
	Hash          string `json:"hash"`
}

// Misc are the record's flags.
type Misc struct {
	IsEmail     bool `json:"is_email"`
	IsEncrypted bool `json:"is_encrypted"`
	IsSigned    bool `json:"is_signed"`
	HasPassword bool `json:"has_password"`
}

// Proof is a record's offline proof bundle (beyond the seed), what `seald proof verify` checks. Its members
// are those of proof.Bundle, which converts to it.
type Proof struct {
	Version     int      `json:"version"`
	Reference   string   `json:"reference"`
	Hash        string   `json:"hash"`
	CID         string   `json:"cid"`
	Network     string   `json:"network"`
	ChainID     string   `json:"chain_id"`
	ChainName   string   `json:"chain_name"`
	Contract    string   `json:"contract"`
	TokenID     string   `json:"token_id"`
	Leaf        string   `json:"leaf"`
	MerklePath  []string `json:"merkle_path"`
	Root        string   `json:"root"`
	TxHash      string   `json:"tx_hash"`
	BlockNumber uint64   `json:"block_number"`
	KeyID       string   `json:"key_id"`
	PublicKey   string   `json:"public_key"`
	Signature   string   `json:"signature"`
	Manifest    string   `json:"manifest,omitempty"` // the batch manifest's URL; not signed
	// Issuer is the business that sealed the record (version 3): see package proof's Issuer.
	Issuer *ProofIssuer `json:"issuer,omitempty"`
}

// ProofIssuer is who sealed a record, inside what the service signs (package proof, issuer.go): the business,
// and while its domain is verified by did:web, its DID, when it was verified, and the signature of its key
// (KeyID, a method of the DID document) over the bundle's digest. Status is "domain-verified" or
// "self-declared".
type ProofIssuer struct {
	BusinessID string     `json:"business_id"`
	Name       string     `json:"name"`
	Status     string     `json:"status"`
	DID        string     `json:"did,omitempty"`
	VerifiedAt *time.Time `json:"verified_at,omitempty"`
	KeyID      string     `json:"key_id,omitempty"`
	Signature  string     `json:"signature,omitempty"`
}

// StatusRecord is the data of the status operation.
type StatusRecord struct {
	ErrorMessage      *string `json:"error_message"` // nil when there is no error
	ErrorType         string  `json:"error_type"`
	IsEmail           bool    `json:"is_email"`
	IsEncrypted       bool    `json:"is_encrypted"`
	IsSigned          bool    `json:"is_signed"`
	HasPassword       bool    `json:"has_password"`
	CreatedTime       string  `json:"created_time"`
	UpdatedTime       string  `json:"updated_time"`
	BlockchainNetwork string  `json:"blockchain_network"`
	Reference         string  `json:"reference"`
	Pipeline          string  `json:"pipeline"`
	TokenID           string  `json:"token_id"`
	ProjectID         string  `json:"project_id"`
	BusinessID        string  `json:"business_id"`
	Mimetype          string  `json:"mimetype"`
	State             string  `json:"state"` // PENDING ... COMPLETED, or FAILED
	EncryptedFile     string  `json:"encrypted_file"`
	Hash              string  `json:"hash"`
	CID               string  `json:"cid"`
	Status            string  `json:"status"` // beyond the seed: ACTIVE, SUSPENDED or REVOKED
	// ErasedTime (beyond the seed) is when the record's data was erased (RFC 3339); absent while it is kept.
	ErasedTime string `json:"erased_time,omitempty"`
}

// Pipeline states of StatusRecord.State that end a record's processing.
const (
	StateCompleted = "COMPLETED"
	StateFailed    = "FAILED"
)

// Networks of the authentication operations and of verification by token id.
const (
	Polygon = "POLYGON"
	EOS     = "EOS"
)

// AuthenticationRequest is the body of the authentication operations. Data is the JSON object to seal, kept
// as raw JSON so that numbers keep their precision on the way.
type AuthenticationRequest struct {
	Data    json.RawMessage `json:"data"`
	To      string          `json:"to"`
	Cc      string          `json:"cc,omitempty"`
	Subject string          `json:"subject,omitempty"`
	Body    string          `json:"body,omitempty"`
	IsHTML  Flag            `json:"is_html,omitempty"`
	// Password, beyond the seed, protects downloads of the stored copy.
	Password string `json:"password,omitempty"`
	// EncryptedReference, beyond the seed, also makes an encrypted reference (AuthenticationResult.OVI).
	EncryptedReference Flag `json:"encrypted_reference,omitempty"`
}

// Flag is the seed's integer flag (is_html): it is sent as 1 or 0 and read from 1, 0, true or false.
type Flag bool

// MarshalJSON writes 1 or 0.
func (f Flag) MarshalJSON() ([]byte, error) {
	if f {
		return []byte("1"), nil
	}
	return []byte("0"), nil
}

// UnmarshalJSON reads 1, 0, true, false or null.
func (f *Flag) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "1", "true":
		*f = true
	case "0", "false", "null":
		*f = false
	default:
		return fmt.Errorf("a flag must be 0, 1, true or false, not %s", b)
	}
	return nil
}

// AuthenticationResult is the data of the authentication operations.
type AuthenticationResult struct {
	Reference string `json:"reference"`
	Hash      string `json:"hash"`
	OVI       string `json:"ovi,omitempty"` // beyond the seed, with EncryptedReference
}

// GeneratorResult is the data of the generator operation.
type GeneratorResult struct {
	Reference        string `json:"reference"`
	EncryptedOVI     string `json:"encrypted_ovi"`
	VerificationLink string `json:"verification_link"`
	QRCode           string `json:"qr_code,omitempty"`
}

// StatusChange is the data of the status update operation.
type StatusChange struct {
	Reference string `json:"reference"`
	Status    string `json:"status"`
	Msg       string `json:"msg"`
}

// Erasure (beyond the seed) is the data of the erase operation.
type Erasure struct {
	Reference          string `json:"reference"`
	Status             string `json:"status"` // kept as it was
	IsDataDownloadable bool   `json:"is_data_downloadable"`
	ErasedTime         string `json:"erased_time"`
	Msg                string `json:"msg"`
}

// History (beyond the seed) is a record's audit trail: every status change, oldest first.
type History struct {
	Reference string          `json:"reference"`
	Status    string          `json:"status"`
	Changes   []HistoryChange `json:"changes"`
}

// HistoryChange is one status change of a record.
type HistoryChange struct {
	Time   string `json:"time"` // RFC 3339, UTC, milliseconds
	From   string `json:"from"`
	To     string `json:"to"`
	Actor  string `json:"actor"` // the id of the API key that made it, or "cli" for the operator
	Reason string `json:"reason"`
	// Action (beyond the seed) is "status" for a status change, "erase" for the erasure of the record's
	// data (From and To are then the status it kept).
	Action string `json:"action"`
}

// PublicKey is the service's signing key, published at /.well-known/seald-key.
type PublicKey struct {
	Algorithm string `json:"algorithm"`
	PublicKey string `json:"public_key"` // base64 (standard)
}

// Webhook (beyond the seed) is an endpoint of the caller's project that record events are delivered to.
type Webhook struct {
	ID        string   `json:"id"`
	URL       string   `json:"url"`
	Events    []string `json:"events"`
	CreatedAt string   `json:"created_at"` // RFC 3339, UTC, milliseconds
	// Secret is the signing secret, in the answer of the creation only.
	Secret string `json:"secret,omitempty"`
}

// WebhookList is the caller's project's webhooks, oldest first.
type WebhookList struct {
	Webhooks []Webhook `json:"webhooks"`
}

// Delivery is one event sent (or to be sent) to one webhook.
type Delivery struct {
	ID        string `json:"id"`
	WebhookID string `json:"webhook_id"`
	EventID   string `json:"event_id"` // the same for every attempt and replay of the event
	EventType string `json:"event_type"`
	Reference string `json:"reference"`
	State     string `json:"state"` // PENDING, DELIVERED or FAILED
	Attempts  int    `json:"attempts"`
	CreatedAt string `json:"created_at"`
	// The last attempt: when, the endpoint's status code (absent when it gave none) and why it failed.
	LastAttemptAt  string `json:"last_attempt_at,omitempty"`
	LastStatusCode int    `json:"last_status_code,omitempty"`
	LastError      string `json:"last_error,omitempty"`
	// NextAttemptAt is when the next attempt is due, while PENDING.
	NextAttemptAt string `json:"next_attempt_at,omitempty"`
}

// DeliveryList is a webhook's latest deliveries, newest first.
type DeliveryList struct {
	WebhookID  string     `json:"webhook_id"`
	Deliveries []Delivery `json:"deliveries"`
}
