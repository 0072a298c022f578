package httpapi

import (
	"context"
	"crypto/ed25519"

	"seald.dev/seald"
	"seald.dev/seald/didweb"
)

// The API's view of the domain: one small interface per group of handlers, each holding only what that group
// calls, so that a handler test fakes a few methods (package mock) and runs without a database, a chain or
// the binary. *seald.Service satisfies every one of them (asserted in this package's tests).

// Authenticator checks the two key headers of a request (the authenticate middleware).
type Authenticator interface {
	Authenticate(ctx context.Context, subscriptionKey, apiKey string) (*seald.Caller, error)
}

// Verifier answers the verification operations (/verification/api/v1/verify/...), with a proof bundle on
// request.
type Verifier interface {
	Verify(ctx context.Context, c *seald.Caller, l seald.Lookup) (*seald.Verification, error)
	Proof(ctx context.Context, r *seald.Record) (*seald.Proof, error)
}

// Sealer accepts records: the seal operations of both networks and the OVI generator.
type Sealer interface {
	Seal(ctx context.Context, c *seald.Caller, req *seald.SealRequest) (*seald.Record, error)
	Generate(ctx context.Context, c *seald.Caller, data []byte) (*seald.Record, error)
	VerificationLink(reference string) string
}

// RecordKeeper answers a record's owner: its status, status changes, audit trail and download.
type RecordKeeper interface {
	Status(ctx context.Context, c *seald.Caller, reference string) (*seald.Record, error)
	ChangeStatus(ctx context.Context, c *seald.Caller, reference, status, reason string) (*seald.Record, *seald.StatusChange, error)
	History(ctx context.Context, c *seald.Caller, reference string) (*seald.Record, []*seald.StatusChange, error)
	Download(ctx context.Context, c *seald.Caller, reference, password string) ([]byte, error)
}

// Eraser erases a record's data for its owner.
type Eraser interface {
	Erase(ctx context.Context, c *seald.Caller, reference, reason string) (*seald.Record, bool, error)
}

// Discloser gives a record's owner its selective-disclosure package.
type Discloser interface {
	Disclosure(ctx context.Context, c *seald.Caller, reference, password string) (*seald.DisclosurePackage, error)
}

// TenantUpdater changes the caller's business and project details.
type TenantUpdater interface {
	UpdateTenant(ctx context.Context, c *seald.Caller, u seald.TenantUpdate) (*seald.Business, *seald.Project, error)
}

// WebhookKeeper keeps the caller's project's webhooks and their deliveries.
type WebhookKeeper interface {
	CreateWebhook(ctx context.Context, c *seald.Caller, req seald.WebhookRequest) (*seald.Webhook, string, error)
	ListWebhooks(ctx context.Context, c *seald.Caller) ([]*seald.Webhook, error)
	DeleteWebhook(ctx context.Context, c *seald.Caller, id string) (*seald.Webhook, error)
	WebhookDeliveries(ctx context.Context, c *seald.Caller, id string) (*seald.Webhook, []*seald.Delivery, error)
	ReplayDelivery(ctx context.Context, c *seald.Caller, deliveryID string) (*seald.Delivery, error)
}

// IdentityKeeper keeps the domain identity of the caller's business (did:web, issue 41).
type IdentityKeeper interface {
	SetIdentity(ctx context.Context, c *seald.Caller, req seald.IdentityRequest) (*seald.Identity, *didweb.Document, error)
	CheckIdentity(ctx context.Context, c *seald.Caller) (*seald.Identity, *didweb.Document, error)
	IdentityOf(ctx context.Context, c *seald.Caller) (*seald.Identity, *didweb.Document, error)
}

// Issuer publishes who this service is: its signing key, its trust root, and the chains it anchors on (named
// in verification results and /readyz).
type Issuer interface {
	PublicKey() ed25519.PublicKey
	TrustRoot() *seald.TrustRoot
	Chain(network string) (seald.Chain, bool)
}

// Service is every group together: what Server.Service holds, so that the program passes one value (a
// *seald.Service) and a test one fake.
type Service interface {
	Authenticator
	Verifier
	Sealer
	RecordKeeper
	Eraser
	Discloser
	TenantUpdater
	WebhookKeeper
	IdentityKeeper
	Issuer
}
