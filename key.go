package seald

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"strings"

	"github.com/google/uuid"
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

// digestEqual compares two digests in constant time, so that a timing difference cannot tell a caller how
// much of a guessed key matched what is stored.
func digestEqual(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewID returns prefix and 16 lowercase base32 characters (80 random bits): the public ids of businesses,
// projects and keys.
func NewID(prefix string) string {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return prefix + strings.ToLower(idEncoding.EncodeToString(b[:]))
}

// NewReference returns a reference: the prefix ("D-" or "I-") and a lowercase UUID version 4, whose 122
// random bits make it safe as a bearer look-up key in public links.
func NewReference(prefix string) string {
	return prefix + uuid.New().String()
}

// ParseReference checks that s is a reference of a known prefix with a lowercase version 4 UUID.
func ParseReference(s string) error {
	if len(s) != 38 || (s[:2] != PrefixAuthentication && s[:2] != PrefixGenerator) {
		if len(s) > 2 && s[1] == '-' && s[:2] != PrefixAuthentication && s[:2] != PrefixGenerator {
			return Errorf(EINVALID, "reference has an unknown prefix %q (want D- or I-)", s[:2])
		}
		return Errorf(EINVALID, "reference must be D- or I- followed by a UUID")
	}
	u, err := uuid.Parse(s[2:])
	if err != nil || u.String() != s[2:] {
		return Errorf(EINVALID, "reference must be D- or I- followed by a lowercase UUID")
	}
	return nil
}

func newUUID() string { return uuid.New().String() }
