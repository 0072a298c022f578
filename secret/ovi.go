package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"strings"

	"seald.dev/seald"

	"github.com/google/uuid"
)

// An encrypted OVI is base64url (no padding) of: version byte 1 || 12-byte nonce || AES-256-GCM ciphertext
// and tag of 49 bytes: the reference's prefix letter ('D' or 'I'), its 16 UUID bytes and the 32 hash bytes.
// Binary rather than JSON inside keeps it short (110 characters) so that it fits in a QR code beside the link.
// The additional data "seald/ovi/v1" separates it from every other use of the key.
const oviVersion = 1

var oviAAD = []byte("seald/ovi/v1")

// EncryptOVI returns the encrypted_ovi of a reference and its hash.
func (k *Keys) EncryptOVI(reference, hash string) (string, error) {
	id, err := uuid.Parse(reference[2:])
	if err != nil {
		return "", err
	}
	h, err := hex.DecodeString(hash)
	if err != nil || len(h) != 32 {
		return "", seald.Errorf(seald.EINVALID, "hash is not a SHA-256 hex digest")
	}
	plain := make([]byte, 0, 49)
	plain = append(plain, reference[0])
	plain = append(plain, id[:]...)
	plain = append(plain, h...)
	gcm, err := k.oviAEAD()
	if err != nil {
		return "", err
	}
	out := make([]byte, 1+gcm.NonceSize(), 1+gcm.NonceSize()+len(plain)+gcm.Overhead())
	out[0] = oviVersion
	if _, err := rand.Read(out[1:]); err != nil {
		return "", err
	}
	out = gcm.Seal(out, out[1:1+gcm.NonceSize()], plain, oviAAD)
	return base64.RawURLEncoding.EncodeToString(out), nil
}

// DecryptOVI returns the reference and hash inside an encrypted_ovi. Anything that is not an OVI of this
// service (malformed, truncated, tampered with or sealed under another key) is EINVALID.
func (k *Keys) DecryptOVI(ovi string) (reference, hash string, err error) {
	bad := seald.Errorf(seald.EINVALID, "ovi is not a valid encrypted reference of this service")
	if len(ovi) > 200 {
		return "", "", bad
	}
	b, err := base64.RawURLEncoding.DecodeString(ovi)
	if err != nil || len(b) < 1 || b[0] != oviVersion {
		return "", "", bad
	}
	gcm, err := k.oviAEAD()
	if err != nil {
		return "", "", err
	}
	b = b[1:]
	if len(b) < gcm.NonceSize()+gcm.Overhead() {
		return "", "", bad
	}
	plain, err := gcm.Open(nil, b[:gcm.NonceSize()], b[gcm.NonceSize():], oviAAD)
	if err != nil || len(plain) != 49 || (plain[0] != 'D' && plain[0] != 'I') {
		return "", "", bad
	}
	id, _ := uuid.FromBytes(plain[1:17])
	return string(plain[0]) + "-" + strings.ToLower(id.String()), hex.EncodeToString(plain[17:]), nil
}

func (k *Keys) oviAEAD() (cipher.AEAD, error) {
	block, err := aes.NewCipher(k.ovi[:])
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
