// Package secret is seald's cryptography behind the domain's small interfaces (seald.Signer,
// seald.KeyWrapper, seald.EnvelopeSealer, seald.OVICodec, seald.PasswordHasher): Keys holds the service's own
// keys and is the one implementation of all of them. Callers hold the interfaces, never raw key bytes, so that
// key ids, rotation or another key source change this package only.
//
// It uses the standard library's AES-GCM and Ed25519 and x/crypto's Argon2id; nothing here is a new primitive.
package secret

import (
	"encoding/json"
	"fmt"
	"sync"

	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
)

// Keys are the service's own keys. They are generated at first start into the data dir; the domain only uses
// them through its interfaces.
type Keys struct {
	// master wraps the per-record data keys of stored envelopes and seals subscription secrets.
	master [32]byte
	// ovi encrypts the references embedded in documents (encrypted_ovi).
	ovi [32]byte
	// signing signs record digests (is_signed); its public half is published.
	signing ed25519.PrivateKey

	once    sync.Once
	hashing chan struct{} // a slot per password hash the memory budget allows (password.go)
}

// Generate makes a fresh set of keys.
func Generate() (*Keys, error) {
	k := &Keys{}
	if _, err := rand.Read(k.master[:]); err != nil {
		return nil, err
	}
	if _, err := rand.Read(k.ovi[:]); err != nil {
		return nil, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	k.signing = priv
	return k, nil
}

// file is the secrets file's format (mode 0600 in the data dir): the master key, the OVI key and the Ed25519
// signing seed, base64 in JSON. It is unchanged since the first release, so existing data dirs load.
type file struct {
	Master     []byte `json:"master_key"`
	OVI        []byte `json:"ovi_key"`
	SigningKey []byte `json:"signing_seed"`
}

// Parse reads keys in the secrets file's format.
func Parse(b []byte) (*Keys, error) {
	var f file
	if err := json.Unmarshal(b, &f); err != nil || len(f.Master) != 32 || len(f.OVI) != 32 || len(f.SigningKey) != ed25519.SeedSize {
		return nil, fmt.Errorf("not a valid secrets file")
	}
	k := &Keys{signing: ed25519.NewKeyFromSeed(f.SigningKey)}
	copy(k.master[:], f.Master)
	copy(k.ovi[:], f.OVI)
	return k, nil
}

// Marshal writes the keys in the secrets file's format.
func (k *Keys) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(file{Master: k.master[:], OVI: k.ovi[:], SigningKey: k.signing.Seed()}, "", "  ")
	return append(b, '\n'), err
}

// Sign signs a digest with the service's Ed25519 key.
func (k *Keys) Sign(digest []byte) []byte { return ed25519.Sign(k.signing, digest) }

// PublicKey is the public half of the signing key, published at /.well-known/seald-key.
func (k *Keys) PublicKey() ed25519.PublicKey { return k.signing.Public().(ed25519.PublicKey) }

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
func (k *Keys) SealString(v, purpose string) (string, error) {
	b, err := seal(k.master[:], []byte(v), []byte("seald/"+purpose))
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// OpenString reverses SealString.
func (k *Keys) OpenString(v, purpose string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return "", err
	}
	p, err := open(k.master[:], b, []byte("seald/"+purpose))
	if err != nil {
		return "", err
	}
	return string(p), nil
}
