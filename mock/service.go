// Package mock fakes the domain for the handler tests of httpapi, web and console: Service has one function field per
// method those packages call, and a test sets only the ones its handler needs. A method whose field is nil
// panics with its name, so a test that reaches a method it did not expect fails loudly (the HTTP layer
// recovers the panic into a 500, which the test sees). Fakes are for the HTTP layer only: the rules
// themselves are tested against the real Service and real stores.
package mock

import (
	"context"
	"crypto/ed25519"
	"time"

	"seald.dev/seald"
)

// Service fakes what httpapi.Server and web.Page call of a *seald.Service.
type Service struct {
	// IdentityFns fakes the domain identity operations.
	IdentityFns
	AuthenticateFn func(ctx context.Context, subscriptionKey, apiKey string) (*seald.Caller, error)

	VerifyFn func(ctx context.Context, c *seald.Caller, l seald.Lookup) (*seald.Verification, error)
	ProofFn  func(ctx context.Context, r *seald.Record) (*seald.Proof, error)

	SealFn             func(ctx context.Context, c *seald.Caller, req *seald.SealRequest) (*seald.Record, error)
	GenerateFn         func(ctx context.Context, c *seald.Caller, data []byte) (*seald.Record, error)
	VerificationLinkFn func(reference string) string

	StatusFn       func(ctx context.Context, c *seald.Caller, reference string) (*seald.Record, error)
	ChangeStatusFn func(ctx context.Context, c *seald.Caller, reference, status, reason string) (*seald.Record, *seald.StatusChange, error)
	HistoryFn      func(ctx context.Context, c *seald.Caller, reference string) (*seald.Record, []*seald.StatusChange, error)
	DownloadFn     func(ctx context.Context, c *seald.Caller, reference, password string) ([]byte, error)
	DisclosureFn   func(ctx context.Context, c *seald.Caller, reference, password string) (*seald.DisclosurePackage, error)
	EraseFn        func(ctx context.Context, c *seald.Caller, reference, reason string) (*seald.Record, bool, error)
	ListRecordsFn  func(ctx context.Context, c *seald.Caller, q seald.RecordQuery) (*seald.RecordPage, error)

	RecordStatsFn      func(ctx context.Context, c *seald.Caller, days int) (*seald.RecordStats, error)
	ProjectKeysFn      func(ctx context.Context, c *seald.Caller) ([]*seald.Key, error)
	IssueProjectKeyFn  func(ctx context.Context, c *seald.Caller) (string, *seald.Key, error)
	RotateProjectKeyFn func(ctx context.Context, c *seald.Caller, keyID string, overlap time.Duration) (string, *seald.Key, error)
	RevokeProjectKeyFn func(ctx context.Context, c *seald.Caller, keyID string) (*seald.Key, error)

	UpdateTenantFn func(ctx context.Context, c *seald.Caller, u seald.TenantUpdate) (*seald.Business, *seald.Project, error)

	CreateWebhookFn     func(ctx context.Context, c *seald.Caller, req seald.WebhookRequest) (*seald.Webhook, string, error)
	ListWebhooksFn      func(ctx context.Context, c *seald.Caller) ([]*seald.Webhook, error)
	DeleteWebhookFn     func(ctx context.Context, c *seald.Caller, id string) (*seald.Webhook, error)
	WebhookDeliveriesFn func(ctx context.Context, c *seald.Caller, id string) (*seald.Webhook, []*seald.Delivery, error)
	ReplayDeliveryFn    func(ctx context.Context, c *seald.Caller, deliveryID string) (*seald.Delivery, error)

	PublicKeyFn func() ed25519.PublicKey
	TrustRootFn func() *seald.TrustRoot
	ChainFn     func(network string) (seald.Chain, bool)

	PublicRecordFn  func(ctx context.Context, id string) (*seald.PublicRecord, error)
	PublicProofFn   func(ctx context.Context, id string) (*seald.Proof, error)
	TokenMetadataFn func(ctx context.Context, network, tokenID string) (*seald.TokenMetadata, error)
	TrustRootURLFn  func() string
}

func unset(name string) { panic("mock: Service." + name + "Fn is not set") }

// Authenticate calls AuthenticateFn.
func (s *Service) Authenticate(ctx context.Context, subscriptionKey, apiKey string) (*seald.Caller, error) {
	if s.AuthenticateFn == nil {
		unset("Authenticate")
	}
	return s.AuthenticateFn(ctx, subscriptionKey, apiKey)
}

// Verify calls VerifyFn.
func (s *Service) Verify(ctx context.Context, c *seald.Caller, l seald.Lookup) (*seald.Verification, error) {
	if s.VerifyFn == nil {
		unset("Verify")
	}
	return s.VerifyFn(ctx, c, l)
}

// Proof calls ProofFn.
func (s *Service) Proof(ctx context.Context, r *seald.Record) (*seald.Proof, error) {
	if s.ProofFn == nil {
		unset("Proof")
	}
	return s.ProofFn(ctx, r)
}

// Seal calls SealFn.
func (s *Service) Seal(ctx context.Context, c *seald.Caller, req *seald.SealRequest) (*seald.Record, error) {
	if s.SealFn == nil {
		unset("Seal")
	}
	return s.SealFn(ctx, c, req)
}

// Generate calls GenerateFn.
func (s *Service) Generate(ctx context.Context, c *seald.Caller, data []byte) (*seald.Record, error) {
	if s.GenerateFn == nil {
		unset("Generate")
	}
	return s.GenerateFn(ctx, c, data)
}

// VerificationLink calls VerificationLinkFn.
func (s *Service) VerificationLink(reference string) string {
	if s.VerificationLinkFn == nil {
		unset("VerificationLink")
	}
	return s.VerificationLinkFn(reference)
}

// Status calls StatusFn.
func (s *Service) Status(ctx context.Context, c *seald.Caller, reference string) (*seald.Record, error) {
	if s.StatusFn == nil {
		unset("Status")
	}
	return s.StatusFn(ctx, c, reference)
}

// ChangeStatus calls ChangeStatusFn.
func (s *Service) ChangeStatus(ctx context.Context, c *seald.Caller, reference, status, reason string) (*seald.Record, *seald.StatusChange, error) {
	if s.ChangeStatusFn == nil {
		unset("ChangeStatus")
	}
	return s.ChangeStatusFn(ctx, c, reference, status, reason)
}

// History calls HistoryFn.
func (s *Service) History(ctx context.Context, c *seald.Caller, reference string) (*seald.Record, []*seald.StatusChange, error) {
	if s.HistoryFn == nil {
		unset("History")
	}
	return s.HistoryFn(ctx, c, reference)
}

// Download calls DownloadFn.
func (s *Service) Download(ctx context.Context, c *seald.Caller, reference, password string) ([]byte, error) {
	if s.DownloadFn == nil {
		unset("Download")
	}
	return s.DownloadFn(ctx, c, reference, password)
}

// Disclosure calls DisclosureFn.
func (s *Service) Disclosure(ctx context.Context, c *seald.Caller, reference, password string) (*seald.DisclosurePackage, error) {
	if s.DisclosureFn == nil {
		unset("Disclosure")
	}
	return s.DisclosureFn(ctx, c, reference, password)
}

// Erase calls EraseFn.
func (s *Service) Erase(ctx context.Context, c *seald.Caller, reference, reason string) (*seald.Record, bool, error) {
	if s.EraseFn == nil {
		unset("Erase")
	}
	return s.EraseFn(ctx, c, reference, reason)
}

// UpdateTenant calls UpdateTenantFn.
func (s *Service) UpdateTenant(ctx context.Context, c *seald.Caller, u seald.TenantUpdate) (*seald.Business, *seald.Project, error) {
	if s.UpdateTenantFn == nil {
		unset("UpdateTenant")
	}
	return s.UpdateTenantFn(ctx, c, u)
}

// CreateWebhook calls CreateWebhookFn.
func (s *Service) CreateWebhook(ctx context.Context, c *seald.Caller, req seald.WebhookRequest) (*seald.Webhook, string, error) {
	if s.CreateWebhookFn == nil {
		unset("CreateWebhook")
	}
	return s.CreateWebhookFn(ctx, c, req)
}

// ListWebhooks calls ListWebhooksFn.
func (s *Service) ListWebhooks(ctx context.Context, c *seald.Caller) ([]*seald.Webhook, error) {
	if s.ListWebhooksFn == nil {
		unset("ListWebhooks")
	}
	return s.ListWebhooksFn(ctx, c)
}

// DeleteWebhook calls DeleteWebhookFn.
func (s *Service) DeleteWebhook(ctx context.Context, c *seald.Caller, id string) (*seald.Webhook, error) {
	if s.DeleteWebhookFn == nil {
		unset("DeleteWebhook")
	}
	return s.DeleteWebhookFn(ctx, c, id)
}

// WebhookDeliveries calls WebhookDeliveriesFn.
func (s *Service) WebhookDeliveries(ctx context.Context, c *seald.Caller, id string) (*seald.Webhook, []*seald.Delivery, error) {
	if s.WebhookDeliveriesFn == nil {
		unset("WebhookDeliveries")
	}
	return s.WebhookDeliveriesFn(ctx, c, id)
}

// ReplayDelivery calls ReplayDeliveryFn.
func (s *Service) ReplayDelivery(ctx context.Context, c *seald.Caller, deliveryID string) (*seald.Delivery, error) {
	if s.ReplayDeliveryFn == nil {
		unset("ReplayDelivery")
	}
	return s.ReplayDeliveryFn(ctx, c, deliveryID)
}

// PublicKey calls PublicKeyFn.
func (s *Service) PublicKey() ed25519.PublicKey {
	if s.PublicKeyFn == nil {
		unset("PublicKey")
	}
	return s.PublicKeyFn()
}

// TrustRoot calls TrustRootFn.
func (s *Service) TrustRoot() *seald.TrustRoot {
	if s.TrustRootFn == nil {
		unset("TrustRoot")
	}
	return s.TrustRootFn()
}

// Chain calls ChainFn; without it no network is anchored on.
func (s *Service) Chain(network string) (seald.Chain, bool) {
	if s.ChainFn == nil {
		return seald.Chain{}, false
	}
	return s.ChainFn(network)
}

// PublicRecord calls PublicRecordFn.
func (s *Service) PublicRecord(ctx context.Context, id string) (*seald.PublicRecord, error) {
	if s.PublicRecordFn == nil {
		unset("PublicRecord")
	}
	return s.PublicRecordFn(ctx, id)
}

// PublicProof calls PublicProofFn.
func (s *Service) PublicProof(ctx context.Context, id string) (*seald.Proof, error) {
	if s.PublicProofFn == nil {
		unset("PublicProof")
	}
	return s.PublicProofFn(ctx, id)
}

// TokenMetadata calls TokenMetadataFn.
func (s *Service) TokenMetadata(ctx context.Context, network, tokenID string) (*seald.TokenMetadata, error) {
	if s.TokenMetadataFn == nil {
		unset("TokenMetadata")
	}
	return s.TokenMetadataFn(ctx, network, tokenID)
}

// TrustRootURL calls TrustRootURLFn.
func (s *Service) TrustRootURL() string {
	if s.TrustRootURLFn == nil {
		unset("TrustRootURL")
	}
	return s.TrustRootURLFn()
}

// ListRecords calls ListRecordsFn.
func (s *Service) ListRecords(ctx context.Context, c *seald.Caller, q seald.RecordQuery) (*seald.RecordPage, error) {
	if s.ListRecordsFn == nil {
		unset("ListRecords")
	}
	return s.ListRecordsFn(ctx, c, q)
}

// ProjectKeys calls ProjectKeysFn.
func (s *Service) ProjectKeys(ctx context.Context, c *seald.Caller) ([]*seald.Key, error) {
	if s.ProjectKeysFn == nil {
		unset("ProjectKeys")
	}
	return s.ProjectKeysFn(ctx, c)
}

// IssueProjectKey calls IssueProjectKeyFn.
func (s *Service) IssueProjectKey(ctx context.Context, c *seald.Caller) (string, *seald.Key, error) {
	if s.IssueProjectKeyFn == nil {
		unset("IssueProjectKey")
	}
	return s.IssueProjectKeyFn(ctx, c)
}

// RotateProjectKey calls RotateProjectKeyFn.
func (s *Service) RotateProjectKey(ctx context.Context, c *seald.Caller, keyID string, overlap time.Duration) (string, *seald.Key, error) {
	if s.RotateProjectKeyFn == nil {
		unset("RotateProjectKey")
	}
	return s.RotateProjectKeyFn(ctx, c, keyID, overlap)
}

// RevokeProjectKey calls RevokeProjectKeyFn.
func (s *Service) RevokeProjectKey(ctx context.Context, c *seald.Caller, keyID string) (*seald.Key, error) {
	if s.RevokeProjectKeyFn == nil {
		unset("RevokeProjectKey")
	}
	return s.RevokeProjectKeyFn(ctx, c, keyID)
}

// RecordStats calls RecordStatsFn.
func (s *Service) RecordStats(ctx context.Context, c *seald.Caller, days int) (*seald.RecordStats, error) {
	if s.RecordStatsFn == nil {
		unset("RecordStats")
	}
	return s.RecordStatsFn(ctx, c, days)
}
