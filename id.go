package seald

import (
	"crypto/rand"
	"encoding/base32"
	"strings"

	"github.com/google/uuid"
)

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
