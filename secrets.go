package seald

import (
	"context"
	"crypto/ed25519"
	"time"

	"seald.dev/seald/proof"
)

// The service's cryptography is behind these small interfaces; package secret implements them all with the
// service's own keys. Callers never hold key bytes, so key ids, rotation or another key source are that
// package's business.

// Signer signs the digests of records (is_signed, proof bundles); its public half is published. It is
// declared by package proof, whose bundles and SD-JWTs it signs.
type Signer = proof.Signer

// KeyWrapper seals short secrets (subscription keys) for storage, bound to a purpose.
type KeyWrapper interface {
	SealString(v, purpose string) (string, error)
	OpenString(v, purpose string) (string, error)
}

// EnvelopeSealer encrypts a record's canonical data into the envelope stored in IPFS, bound to its reference,
// and opens it again.
type EnvelopeSealer interface {
	SealEnvelope(reference string, canonical []byte) ([]byte, error)
	OpenEnvelope(reference string, envelope []byte) ([]byte, error)
	// SealDetached seals with the data key kept apart: key is the data key wrapped by the master key, for
	// the database (Record.DataKey); nothing in the envelope opens it, so erasing key makes every copy of
	// the envelope undecryptable.
	SealDetached(reference string, canonical []byte) (envelope []byte, key string, err error)
	// OpenDetached opens an envelope of SealDetached with its key; an empty key opens one of SealEnvelope.
	OpenDetached(reference, key string, envelope []byte) ([]byte, error)
}

// OVICodec makes and reads encrypted references (encrypted_ovi). DecryptOVI answers EINVALID for anything
// that is not an OVI of this service.
type OVICodec interface {
	EncryptOVI(reference, hash string) (string, error)
	DecryptOVI(ovi string) (reference, hash string, err error)
}

// PasswordHasher keeps record passwords as slow hashes only. Hashing takes much memory, so both calls may
// wait for room and fail with EOVERLOADED before anything of the request is done.
type PasswordHasher interface {
	HashPassword(ctx context.Context, password string) (string, error)
	CheckPassword(ctx context.Context, encoded, password string) (bool, error)
}

// Secrets is all of the service's cryptography, as the Service and the pipeline use it.
type Secrets interface {
	Signer
	// SigningKeys lists every signing key, the current one first, retired ones after it.
	SigningKeys() []SigningKey
	// SignAll signs a digest with every signing key not marked compromised, for the trust root.
	SignAll(digest []byte) []KeySignature
	// RetiredContracts lists the contracts the issuer anchored on before its current ones.
	RetiredContracts() []ContractRange
	KeyWrapper
	EnvelopeSealer
	OVICodec
	PasswordHasher
	DisclosureKeyer
}

// SigningKey is one of the service's signing keys, as the trust root lists it.
type SigningKey struct {
	ID      string // KeyID
	Public  ed25519.PublicKey
	Current bool
	Created time.Time // zero for a key from before rotation
	Retired time.Time // zero while current
	// Compromised is when the operator marked the key compromised (`seald keys compromised`); zero if never.
	// Verifiers refuse every bundle such a key signed.
	Compromised time.Time
	// RetiredBlocks is, per chain id, the head of the chain read when the key was retired (`seald keys
	// rotate --signing`): the key covers anchors in blocks up to it (proof.TrustKey.RetiredBlocks).
	RetiredBlocks map[string]uint64
}

// KeySignature is a signature by one signing key, named by its KeyID.
type KeySignature struct {
	KeyID     string
	Signature []byte
}
