package secret

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
)

// The stored envelope (what goes into IPFS), version 1. All integers big-endian:
//
//	magic      6 bytes  "SEALD\x00"
//	version    1 byte   1
//	wrapLen    2 bytes  length of wrapped
//	wrapped    wrapLen  the 32-byte data key sealed with the master key: 12-byte nonce || ciphertext || tag,
//	                    additional data "seald/envelope-key/v1|" + reference
//	payload    rest     the canonical data sealed with the data key: 12-byte nonce || ciphertext || tag,
//	                    additional data "seald/envelope/v1|" + reference
//
// Each record gets a fresh random data key, so two records of the same data have unrelated envelopes and
// CIDs; binding the reference as additional data stops an envelope from being passed off as another record's.
// Only the master key opens an envelope; it never leaves the data dir.
const envelopeVersion = 1

var envelopeMagic = []byte("SEALD\x00")

// SealEnvelope encrypts the canonical data of a record into a version 1 envelope.
func (k *Keys) SealEnvelope(reference string, canonical []byte) ([]byte, error) {
	var dataKey [32]byte
	if _, err := rand.Read(dataKey[:]); err != nil {
		return nil, err
	}
	wrapped, err := seal(k.master[:], dataKey[:], []byte("seald/envelope-key/v1|"+reference))
	if err != nil {
		return nil, err
	}
	payload, err := seal(dataKey[:], canonical, []byte("seald/envelope/v1|"+reference))
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(envelopeMagic)+3+len(wrapped)+len(payload))
	out = append(out, envelopeMagic...)
	out = append(out, envelopeVersion)
	out = binary.BigEndian.AppendUint16(out, uint16(len(wrapped)))
	out = append(out, wrapped...)
	return append(out, payload...), nil
}

// OpenEnvelope decrypts an envelope sealed for reference.
func (k *Keys) OpenEnvelope(reference string, env []byte) ([]byte, error) {
	n := len(envelopeMagic)
	if len(env) < n+3 || string(env[:n]) != string(envelopeMagic) {
		return nil, errors.New("envelope: not a seald envelope")
	}
	if env[n] != envelopeVersion {
		return nil, errors.New("envelope: unknown version")
	}
	wl := int(binary.BigEndian.Uint16(env[n+1:]))
	rest := env[n+3:]
	if len(rest) < wl {
		return nil, errors.New("envelope: truncated")
	}
	dataKey, err := open(k.master[:], rest[:wl], []byte("seald/envelope-key/v1|"+reference))
	if err != nil {
		return nil, errors.New("envelope: the data key does not open with this master key")
	}
	plain, err := open(dataKey, rest[wl:], []byte("seald/envelope/v1|"+reference))
	if err != nil {
		return nil, errors.New("envelope: the payload does not open")
	}
	return plain, nil
}
