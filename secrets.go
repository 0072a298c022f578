package seald

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
)

// Secrets are the service's own keys. They are generated at first start into the data dir (package
// cmd/seald reads and writes the files); the domain only uses them.
type Secrets struct {
	// Master wraps the per-record data keys of stored envelopes and seals subscription secrets.
	Master [32]byte
	// OVI encrypts the references embedded in documents (encrypted_ovi).
	OVI [32]byte
	// Signing signs record digests (is_signed); its public half is published.
	Signing ed25519.PrivateKey
}

// NewSecrets generates a fresh set of secrets.
func NewSecrets() (*Secrets, error) {
	s := &Secrets{}
	if _, err := rand.Read(s.Master[:]); err != nil {
		return nil, err
	}
	if _, err := rand.Read(s.OVI[:]); err != nil {
		return nil, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	s.Signing = priv
	return s, nil
}

// seal encrypts plaintext with AES-256-GCM under key, binding aad, and returns nonce||ciphertext.
func seal(key []byte, plaintext, aad []byte) ([]byte, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	out := make([]byte, gcm.NonceSize(), gcm.NonceSize()+len(plaintext)+gcm.Overhead())
	if _, err := rand.Read(out); err != nil {
		return nil, err
	}
	return gcm.Seal(out, out, plaintext, aad), nil
}

// open reverses seal.
func open(key []byte, sealed, aad []byte) ([]byte, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	if len(sealed) < gcm.NonceSize()+gcm.Overhead() {
		return nil, errors.New("sealed value too short")
	}
	return gcm.Open(nil, sealed[:gcm.NonceSize()], sealed[gcm.NonceSize():], aad)
}

// SealString seals a short secret (a subscription key) under the master key, for storage.
func (s *Secrets) SealString(v, purpose string) (string, error) {
	b, err := seal(s.Master[:], []byte(v), []byte("seald/"+purpose))
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// OpenString reverses SealString.
func (s *Secrets) OpenString(v, purpose string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return "", err
	}
	p, err := open(s.Master[:], b, []byte("seald/"+purpose))
	if err != nil {
		return "", err
	}
	return string(p), nil
}
