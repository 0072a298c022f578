package secret

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
)

// The stored envelope (what goes into IPFS). All integers big-endian. Version 2:
//
//	magic      6 bytes  "SEALD\x00"
//	version    1 byte   2
//	keyID      8 bytes  the master key's id (the first 8 bytes of masterKeyID, as bytes)
//	wrapLen    2 bytes  length of wrapped
//	wrapped    wrapLen  the 32-byte data key sealed with the master key by XChaCha20-Poly1305: 24-byte
//	                    nonce || ciphertext || tag, additional data "seald/envelope-key/v2|" + reference
//	payload    rest     the canonical data sealed with the data key by AES-256-GCM: 12-byte nonce ||
//	                    ciphertext || tag, additional data "seald/envelope/v2|" + reference
//
// Version 1 (before key rotation) had no key id and wrapped with AES-256-GCM under the one master key; it is
// still opened, with each master key in turn. Each record gets a fresh random data key, used once, so its
// AES-GCM nonce cannot collide; the master key wraps with 192-bit random nonces, so it may wrap any number
// of data keys. Binding the reference as additional data stops an envelope from being passed off as another
// record's. Only a master key opens an envelope; the keys never leave the data dir.
const envelopeVersion = 2

var envelopeMagic = []byte("SEALD\x00")

// SealEnvelope encrypts the canonical data of a record into an envelope under the current master key.
func (k *Keys) SealEnvelope(reference string, canonical []byte) ([]byte, error) {
	var dataKey [32]byte
	if _, err := rand.Read(dataKey[:]); err != nil {
		return nil, err
	}
	m := k.masters[0]
	wrapped, err := sealX(m.key[:], dataKey[:], []byte("seald/envelope-key/v2|"+reference))
	if err != nil {
		return nil, err
	}
	payload, err := seal(dataKey[:], canonical, []byte("seald/envelope/v2|"+reference))
	if err != nil {
		return nil, err
	}
	id, _ := hex.DecodeString(m.id)
	out := make([]byte, 0, len(envelopeMagic)+11+len(wrapped)+len(payload))
	out = append(out, envelopeMagic...)
	out = append(out, envelopeVersion)
	out = append(out, id...)
	out = binary.BigEndian.AppendUint16(out, uint16(len(wrapped)))
	out = append(out, wrapped...)
	return append(out, payload...), nil
}

// OpenEnvelope decrypts an envelope sealed for reference, of either version, under whichever master key
// sealed it.
func (k *Keys) OpenEnvelope(reference string, env []byte) ([]byte, error) {
	n := len(envelopeMagic)
	if len(env) < n+3 || string(env[:n]) != string(envelopeMagic) {
		return nil, errors.New("envelope: not a seald envelope")
	}
	version, rest := env[n], env[n+1:]
	var masters []masterKey
	switch version {
	case 1:
		masters = k.masters
	case 2:
		if len(rest) < 8 {
			return nil, errors.New("envelope: truncated")
		}
		m, ok := k.master(hex.EncodeToString(rest[:8]))
		if !ok {
			return nil, errors.New("envelope: sealed under a master key this service does not have")
		}
		masters, rest = []masterKey{*m}, rest[8:]
	default:
		return nil, errors.New("envelope: unknown version")
	}
	if len(rest) < 2 {
		return nil, errors.New("envelope: truncated")
	}
	wl := int(binary.BigEndian.Uint16(rest))
	rest = rest[2:]
	if len(rest) < wl {
		return nil, errors.New("envelope: truncated")
	}
	v := strconv.Itoa(int(version))
	for _, m := range masters {
		var dataKey []byte
		var err error
		if version == 1 {
			dataKey, err = open(m.key[:], rest[:wl], []byte("seald/envelope-key/v1|"+reference))
		} else {
			dataKey, err = openX(m.key[:], rest[:wl], []byte("seald/envelope-key/v2|"+reference))
		}
		if err != nil {
			continue
		}
		plain, err := open(dataKey, rest[wl:], []byte("seald/envelope/v"+v+"|"+reference))
		if err != nil {
			return nil, errors.New("envelope: the payload does not open")
		}
		return plain, nil
	}
	return nil, errors.New("envelope: the data key does not open with this service's master keys")
}

// Version 3 keeps the data key apart from the envelope (issue 19): the envelope is
//
//	magic      6 bytes  "SEALD\x00"
//	version    1 byte   3
//	payload    rest     the canonical data sealed with the data key by AES-256-GCM: 12-byte nonce ||
//	                    ciphertext || tag, additional data "seald/envelope/v3|" + reference
//
// and the data key, wrapped by the master key, is a string the caller keeps in the database:
//
//	"k3." + base64url(keyID 8 bytes || XChaCha20-Poly1305 of the data key, additional data
//	"seald/data-key/v3|" + reference)
//
// Nothing in the envelope opens it, so once the database has forgotten the wrapped key, every copy of the
// envelope, wherever IPFS spread it, is ciphertext no one (this service included) can open.
const detachedVersion = 3

const detachedKeyPrefix = "k3."

// SealDetached encrypts the canonical data of a record under a fresh data key and returns the envelope
// (version 3) and the data key wrapped by the current master key.
func (k *Keys) SealDetached(reference string, canonical []byte) ([]byte, string, error) {
	var dataKey [32]byte
	if _, err := rand.Read(dataKey[:]); err != nil {
		return nil, "", err
	}
	m := k.masters[0]
	wrapped, err := sealX(m.key[:], dataKey[:], []byte("seald/data-key/v3|"+reference))
	if err != nil {
		return nil, "", err
	}
	payload, err := seal(dataKey[:], canonical, []byte("seald/envelope/v3|"+reference))
	if err != nil {
		return nil, "", err
	}
	id, _ := hex.DecodeString(m.id)
	out := make([]byte, 0, len(envelopeMagic)+1+len(payload))
	out = append(out, envelopeMagic...)
	out = append(out, detachedVersion)
	out = append(out, payload...)
	return out, detachedKeyPrefix + base64.RawURLEncoding.EncodeToString(append(id, wrapped...)), nil
}

// OpenDetached decrypts a version 3 envelope with its wrapped data key. An empty key (the record was sealed
// before version 3, so its key is inside the envelope) opens the envelope with OpenEnvelope.
func (k *Keys) OpenDetached(reference, key string, env []byte) ([]byte, error) {
	if key == "" {
		return k.OpenEnvelope(reference, env)
	}
	n := len(envelopeMagic)
	if len(env) < n+1 || string(env[:n]) != string(envelopeMagic) || env[n] != detachedVersion {
		return nil, errors.New("envelope: not a seald envelope of version 3")
	}
	b64, ok := strings.CutPrefix(key, detachedKeyPrefix)
	if !ok {
		return nil, errors.New("envelope: not a wrapped data key")
	}
	raw, err := base64.RawURLEncoding.DecodeString(b64)
	if err != nil || len(raw) < 8 {
		return nil, errors.New("envelope: the wrapped data key is malformed")
	}
	m, ok := k.master(hex.EncodeToString(raw[:8]))
	if !ok {
		return nil, errors.New("envelope: the data key is wrapped under a master key this service does not have")
	}
	dataKey, err := openX(m.key[:], raw[8:], []byte("seald/data-key/v3|"+reference))
	if err != nil {
		return nil, errors.New("envelope: the data key does not open with this service's master key")
	}
	plain, err := open(dataKey, env[n+1:], []byte("seald/envelope/v3|"+reference))
	if err != nil {
		return nil, errors.New("envelope: the payload does not open")
	}
	return plain, nil
}

// DisclosureSecret derives a record's disclosure secret from its data key (a key of SealDetached):
// HMAC-SHA256(data key, "seald/disclosure/v1|" + reference). The salts of the record's selective disclosures
// are derived from it (proof.BuildSD), so erasing the wrapped data key destroys them: no one can make the
// record's disclosures again. A record sealed before version 3 (empty key) has none.
func (k *Keys) DisclosureSecret(reference, key string) ([]byte, error) {
	b64, ok := strings.CutPrefix(key, detachedKeyPrefix)
	if !ok {
		return nil, errors.New("disclosure: not a wrapped data key")
	}
	raw, err := base64.RawURLEncoding.DecodeString(b64)
	if err != nil || len(raw) < 8 {
		return nil, errors.New("disclosure: the wrapped data key is malformed")
	}
	m, ok := k.master(hex.EncodeToString(raw[:8]))
	if !ok {
		return nil, errors.New("disclosure: the data key is wrapped under a master key this service does not have")
	}
	dataKey, err := openX(m.key[:], raw[8:], []byte("seald/data-key/v3|"+reference))
	if err != nil {
		return nil, errors.New("disclosure: the data key does not open with this service's master key")
	}
	mac := hmac.New(sha256.New, dataKey)
	mac.Write([]byte("seald/disclosure/v1|" + reference))
	return mac.Sum(nil), nil
}
