package credential

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// The IETF Token Status List (draft-ietf-oauth-status-list) statuses of seald's SD-JWT VCs, two bits each.
const (
	TokenValid     = 0x00
	TokenInvalid   = 0x01 // revoked
	TokenSuspended = 0x02
)

// TokenStatusBits is the number of bits of each status in seald's status list tokens.
const TokenStatusBits = 2

// TokenStatusType is the typ of a status list token.
const TokenStatusType = "statuslist+jwt"

// TokenStatuses are the statuses of a token status list, TokenStatusBits each, the status of index 0 in
// the least significant bits of the first byte (the draft's order, unlike Bitstring Status List's).
type TokenStatuses []byte

// NewTokenStatuses returns a list of n statuses, all TokenValid.
func NewTokenStatuses(n int) TokenStatuses { return make(TokenStatuses, (n*TokenStatusBits+7)/8) }

// Set sets the status of index i.
func (t TokenStatuses) Set(i int, status byte) {
	shift := uint(i%4) * 2
	t[i/4] = t[i/4]&^(0x03<<shift) | (status&0x03)<<shift
}

// Get reads the status of index i.
func (t TokenStatuses) Get(i int) byte { return t[i/4] >> (uint(i%4) * 2) & 0x03 }

// StatusListToken signs the statuses as a status list token (a JWT of typ statuslist+jwt) whose sub is uri,
// the URL it is served at; ttl tells a relying party how long it may keep it.
func StatusListToken(uri string, t TokenStatuses, iat time.Time, ttl time.Duration, kid string, sign func([]byte) []byte) (string, error) {
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	w.Write(t)
	w.Close()
	claims := map[string]any{
		"sub": uri, "iat": iat.Unix(), "ttl": int64(ttl.Seconds()),
		"status_list": map[string]any{"bits": TokenStatusBits, "lst": base64.RawURLEncoding.EncodeToString(z.Bytes())},
	}
	return signJWT(map[string]any{"alg": "EdDSA", "typ": TokenStatusType, "kid": kid}, claims, sign)
}

// ParseStatusListToken reads a status list token's statuses without checking its signature (VerifyJWT
// does that): its sub and its statuses.
func ParseStatusListToken(jwt string) (sub string, t TokenStatuses, err error) {
	_, payload, err := splitJWT(jwt)
	if err != nil {
		return "", nil, err
	}
	var c struct {
		Sub        string `json:"sub"`
		StatusList struct {
			Bits int    `json:"bits"`
			Lst  string `json:"lst"`
		} `json:"status_list"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		return "", nil, err
	}
	if c.StatusList.Bits != TokenStatusBits {
		return "", nil, fmt.Errorf("status list of %d bits, not %d", c.StatusList.Bits, TokenStatusBits)
	}
	z, err := base64.RawURLEncoding.DecodeString(c.StatusList.Lst)
	if err != nil {
		return "", nil, err
	}
	r, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		return "", nil, err
	}
	b, err := io.ReadAll(io.LimitReader(r, 1<<24))
	return c.Sub, b, err
}

func signJWT(header, claims map[string]any, sign func([]byte) []byte) (string, error) {
	h, err := json.Marshal(header)
	if err != nil {
		return "", err
	}
	p, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(p)
	return input + "." + base64.RawURLEncoding.EncodeToString(sign([]byte(input))), nil
}

func splitJWT(jwt string) (header, payload []byte, err error) {
	seg := strings.Split(jwt, ".")
	if len(seg) != 3 {
		return nil, nil, errors.New("not a compact JWS")
	}
	if header, err = base64.RawURLEncoding.DecodeString(seg[0]); err != nil {
		return nil, nil, errors.New("JWT header is not base64url")
	}
	if payload, err = base64.RawURLEncoding.DecodeString(seg[1]); err != nil {
		return nil, nil, errors.New("JWT payload is not base64url")
	}
	return header, payload, nil
}
