package seald

import (
	"context"
	"crypto/ed25519"
	"time"

	"seald.dev/seald/didweb"
	"seald.dev/seald/proof"
)

// The service by area: each interface is declared here once and implemented once, by *Service. A consumer
// combines the ones it uses (httpapi.Service, console.Source, web.Source) instead of declaring the methods
// again, and package mock holds one fake per interface, so that a new rule or a changed signature is one edit
// here, not one per consumer.

// RecordService is a project's records: sealing, their status and audit trail, erasure, download, the
// listing and counts of the console, and the selective-disclosure package.
type RecordService interface {
	Seal(ctx context.Context, c *Caller, req *SealRequest) (*Record, error)
	Generate(ctx context.Context, c *Caller, data []byte) (*Record, error)
	Status(ctx context.Context, c *Caller, reference string) (*Record, error)
	ChangeStatus(ctx context.Context, c *Caller, reference, status, reason string) (*Record, *StatusChange, error)
	History(ctx context.Context, c *Caller, reference string) (*Record, []*StatusChange, error)
	Download(ctx context.Context, c *Caller, reference, password string) ([]byte, error)
	Erase(ctx context.Context, c *Caller, reference, reason string) (*Record, bool, error)
	Disclosure(ctx context.Context, c *Caller, reference, password string) (*proof.DisclosurePackage, error)
	ListRecords(ctx context.Context, c *Caller, q RecordQuery) (*RecordPage, error)
	RecordStats(ctx context.Context, c *Caller, days int) (*RecordStats, error)
}

// VerificationService answers whoever checks a record: the verification operations (with the proof bundle
// when the lookup asks for it), the public page's reads, and who the issuer is (its signing key, trust root
// and chains).
type VerificationService interface {
	Verify(ctx context.Context, c *Caller, l Lookup) (*Verification, error)
	PublicRecord(ctx context.Context, id string) (*PublicRecord, error)
	PublicProof(ctx context.Context, id string) (*proof.Bundle, error)
	TokenMetadata(ctx context.Context, network, tokenID string) (*TokenMetadata, error)
	VerificationLink(reference string) string
	TrustRootURL() string
	PublicKey() ed25519.PublicKey
	TrustRoot() *proof.TrustRoot
	Chain(network string) (Chain, bool)
}

// TenantService is who may call: authentication, a project's own details and API keys, and the operator's
// actions on tenants and keys, which take the operator's caller (Operator) and refuse any other.
type TenantService interface {
	Authenticate(ctx context.Context, subscriptionKey, apiKey string) (*Caller, error)
	UpdateTenant(ctx context.Context, c *Caller, u TenantUpdate) (*Business, *Project, error)
	ProjectKeys(ctx context.Context, c *Caller) ([]*Key, error)
	IssueProjectKey(ctx context.Context, c *Caller) (string, *Key, error)
	RotateProjectKey(ctx context.Context, c *Caller, keyID string, overlap time.Duration) (string, *Key, error)
	RevokeProjectKey(ctx context.Context, c *Caller, keyID string) (*Key, error)

	CreateTenant(ctx context.Context, c *Caller, req TenantRequest) (*Tenant, error)
	EnsureDefaultTenant(ctx context.Context, c *Caller) (*Tenant, error)
	IssueKey(ctx context.Context, c *Caller, businessID, projectID string) (string, *Key, error)
	RotateKey(ctx context.Context, c *Caller, keyID string, overlap time.Duration) (string, *Key, error)
	RevokeKey(ctx context.Context, c *Caller, keyID string) (*Key, error)
	SetProjectRate(ctx context.Context, c *Caller, projectID string, perSecond float64, burst int) error
}

// WebhookService keeps a project's webhooks and their deliveries.
type WebhookService interface {
	CreateWebhook(ctx context.Context, c *Caller, req WebhookRequest) (*Webhook, string, error)
	ListWebhooks(ctx context.Context, c *Caller) ([]*Webhook, error)
	DeleteWebhook(ctx context.Context, c *Caller, id string) (*Webhook, error)
	WebhookDeliveries(ctx context.Context, c *Caller, id string) (*Webhook, []*Delivery, error)
	ReplayDelivery(ctx context.Context, c *Caller, deliveryID string) (*Delivery, error)
}

// IdentityService keeps the domain identity of the caller's business (did:web, docs/identity.md): the domain
// claimed and the DID document to publish, the check of what the domain publishes, and the state.
type IdentityService interface {
	SetIdentity(ctx context.Context, c *Caller, req IdentityRequest) (*Identity, *didweb.Document, error)
	CheckIdentity(ctx context.Context, c *Caller) (*Identity, *didweb.Document, error)
	IdentityOf(ctx context.Context, c *Caller) (*Identity, *didweb.Document, error)
}

// CredentialService issues records as verifiable credentials (docs/credentials.md) and serves what their
// verifiers fetch: the issuer's DID document and the signed status lists.
type CredentialService interface {
	Credential(ctx context.Context, c *Caller, reference, password, format string) (*IssuedCredential, error)
	DIDDocument() (map[string]any, error)
	StatusListCredential(ctx context.Context, purpose string, list int64) ([]byte, error)
	StatusListToken(ctx context.Context, list int64) (string, error)
}
