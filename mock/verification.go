package mock

import (
	"context"
	"crypto/ed25519"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// VerificationService fakes seald.VerificationService with one function field per method; a test sets the ones its handler calls.
type VerificationService struct {
	VerifyFn           func(ctx context.Context, c *seald.Caller, l seald.Lookup) (*seald.Verification, error)
	PublicRecordFn     func(ctx context.Context, id string) (*seald.PublicRecord, error)
	PublicProofFn      func(ctx context.Context, id string) (*proof.Bundle, error)
	TokenMetadataFn    func(ctx context.Context, network, tokenID string) (*seald.TokenMetadata, error)
	BatchManifestFn    func(ctx context.Context, network, tokenID string) (*proof.BatchManifest, error)
	VerificationLinkFn func(reference string) string
	TrustRootURLFn     func() string
	PublicKeyFn        func() ed25519.PublicKey
	TrustRootFn        func() *proof.TrustRoot
	ChainFn            func(network string) (seald.Chain, bool)
}

var _ seald.VerificationService = (*VerificationService)(nil)

// Verify calls VerifyFn.
func (s *VerificationService) Verify(ctx context.Context, c *seald.Caller, l seald.Lookup) (*seald.Verification, error) {
	if s.VerifyFn == nil {
		unset("VerificationService", "Verify")
	}
	return s.VerifyFn(ctx, c, l)
}

// PublicRecord calls PublicRecordFn.
func (s *VerificationService) PublicRecord(ctx context.Context, id string) (*seald.PublicRecord, error) {
	if s.PublicRecordFn == nil {
		unset("VerificationService", "PublicRecord")
	}
	return s.PublicRecordFn(ctx, id)
}

// PublicProof calls PublicProofFn.
func (s *VerificationService) PublicProof(ctx context.Context, id string) (*proof.Bundle, error) {
	if s.PublicProofFn == nil {
		unset("VerificationService", "PublicProof")
	}
	return s.PublicProofFn(ctx, id)
}

// BatchManifest calls BatchManifestFn.
func (s *VerificationService) BatchManifest(ctx context.Context, network, tokenID string) (*proof.BatchManifest, error) {
	if s.BatchManifestFn == nil {
		unset("VerificationService", "BatchManifest")
	}
	return s.BatchManifestFn(ctx, network, tokenID)
}

// TokenMetadata calls TokenMetadataFn.
func (s *VerificationService) TokenMetadata(ctx context.Context, network, tokenID string) (*seald.TokenMetadata, error) {
	if s.TokenMetadataFn == nil {
		unset("VerificationService", "TokenMetadata")
	}
	return s.TokenMetadataFn(ctx, network, tokenID)
}

// VerificationLink calls VerificationLinkFn.
func (s *VerificationService) VerificationLink(reference string) string {
	if s.VerificationLinkFn == nil {
		unset("VerificationService", "VerificationLink")
	}
	return s.VerificationLinkFn(reference)
}

// TrustRootURL calls TrustRootURLFn.
func (s *VerificationService) TrustRootURL() string {
	if s.TrustRootURLFn == nil {
		unset("VerificationService", "TrustRootURL")
	}
	return s.TrustRootURLFn()
}

// PublicKey calls PublicKeyFn.
func (s *VerificationService) PublicKey() ed25519.PublicKey {
	if s.PublicKeyFn == nil {
		unset("VerificationService", "PublicKey")
	}
	return s.PublicKeyFn()
}

// TrustRoot calls TrustRootFn.
func (s *VerificationService) TrustRoot() *proof.TrustRoot {
	if s.TrustRootFn == nil {
		unset("VerificationService", "TrustRoot")
	}
	return s.TrustRootFn()
}

// Chain calls ChainFn; without it no network is anchored on.
func (s *VerificationService) Chain(network string) (seald.Chain, bool) {
	if s.ChainFn == nil {
		return seald.Chain{}, false
	}
	return s.ChainFn(network)
}
