package service

import (
	"crypto/subtle"
)

// digestEqual compares two digests in constant time, so that a timing difference cannot tell a caller how
// much of a guessed key matched what is stored.
func digestEqual(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
