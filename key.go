package seald

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"time"
)

// Key secrets are a kind prefix and 32 random bytes (256 bits) in base64url: "sk_..." for subscription keys,
// "ak_..." for API keys. The prefix tells an operator which header a leaked key belongs in.
const (
	subscriptionSecretPrefix = "sk_"
	apiSecretPrefix          = "ak_"
	keyPrefixLen             = 10 // characters of a secret kept for listing
)

// NewKeySecret returns a fresh secret of the kind and the Key that stores it (digest and prefix only).
func NewKeySecret(kind KeyKind) (secret string, k *Key, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", nil, err
	}
	p := apiSecretPrefix
	if kind == KeySubscription {
		p = subscriptionSecretPrefix
	}
	secret = p + base64.RawURLEncoding.EncodeToString(b[:])
	return secret, &Key{ID: NewID("key_"), Kind: kind, Prefix: secret[:keyPrefixLen], Digest: KeyDigest(secret)}, nil
}

// KeyDigest is what the store keeps of a secret: lowercase hex SHA-256. A secret has 256 random bits, so a
// fast hash is enough; no password hashing is needed.
func KeyDigest(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// KeyKind says what a key authenticates.
type KeyKind string

// Key kinds: the subscription key (header Ocp-Apim-Subscription-Key) identifies a business, the API key
// (header Api-Key) one project of it.
const (
	KeySubscription KeyKind = "subscription"
	KeyProject      KeyKind = "project"
)

// Key is an issued credential. The secret itself is shown once at issue and never stored: only its SHA-256
// digest (Digest, lowercase hex) and its first characters (Prefix), so keys can be listed.
type Key struct {
	ID         string // "key_" and 16 base32 characters
	Kind       KeyKind
	BusinessID string // public business id
	ProjectID  string // public project id; empty for subscription keys
	Prefix     string
	Digest     string
	CreatedAt  time.Time
	ExpiresAt  *time.Time // set when the key is rotated: it keeps working until then
	RevokedAt  *time.Time
	// Sealed is the subscription secret sealed with the service's master key, so that the operator's CLI can
	// hand it to a new project of the same business; empty for API keys, which exist only as digests.
	Sealed string
}

// Active reports whether the key authenticates at time now.
func (k *Key) Active(now time.Time) bool {
	if k.RevokedAt != nil {
		return false
	}
	return k.ExpiresAt == nil || now.Before(*k.ExpiresAt)
}
