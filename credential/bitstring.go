package credential

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"time"
)

// Status purposes of seald's Bitstring Status List entries: one list of each purpose per range of records.
const (
	PurposeRevocation = "revocation"
	PurposeSuspension = "suspension"
)

// ListSize is the number of entries of one status list: the 16 KiB minimum of Bitstring Status List v1.0
// (131,072 bits), which keeps a list from telling much about any one holder (herd privacy).
const ListSize = 131072

// Bitstring is a status list's bits, the entry of index 0 in the most significant bit of the first byte.
type Bitstring []byte

// NewBitstring returns a bitstring of n entries, all 0.
func NewBitstring(n int) Bitstring { return make(Bitstring, (n+7)/8) }

// Set sets the bit of entry i.
func (b Bitstring) Set(i int) { b[i/8] |= 0x80 >> (i % 8) }

// Get reads the bit of entry i.
func (b Bitstring) Get(i int) bool { return b[i/8]&(0x80>>(i%8)) != 0 }

// Encode is the encodedList of the bitstring: multibase base64url (no padding, prefix 'u') of its GZIP.
func (b Bitstring) Encode() string {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return "u" + base64.RawURLEncoding.EncodeToString(buf.Bytes())
}

// DecodeBitstring reads an encodedList back.
func DecodeBitstring(s string) (Bitstring, error) {
	if len(s) == 0 || s[0] != 'u' {
		return nil, errors.New("encodedList is not multibase base64url (prefix u)")
	}
	z, err := base64.RawURLEncoding.DecodeString(s[1:])
	if err != nil {
		return nil, fmt.Errorf("encodedList: %w", err)
	}
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, fmt.Errorf("encodedList: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(r, 1<<24))
	if err != nil {
		return nil, fmt.Errorf("encodedList: %w", err)
	}
	return b, nil
}

// StatusList is one published status list: the list credential at URL, of purpose, whose entries are bits.
type StatusList struct {
	URL     string
	Issuer  string
	Purpose string
	Bits    Bitstring
	// ValidFrom is when the list was made; TTL how long a verifier may keep it (the service's max-age).
	ValidFrom time.Time
	TTL       time.Duration
}

// Credential signs the list as a BitstringStatusListCredential.
func (l StatusList) Credential(k Key) (map[string]any, error) {
	doc := map[string]any{
		"@context":  []any{ContextV2},
		"id":        l.URL,
		"type":      []any{"VerifiableCredential", "BitstringStatusListCredential"},
		"issuer":    l.Issuer,
		"validFrom": xsdTime(l.ValidFrom),
		"credentialSubject": map[string]any{
			"id": l.URL + "#list", "type": "BitstringStatusList", "statusPurpose": l.Purpose,
			"encodedList": l.Bits.Encode(), "ttl": float64(l.TTL.Milliseconds()),
		},
	}
	return Sign(doc, k, l.ValidFrom)
}
