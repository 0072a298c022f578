package seald

import (
	"math/big"
	"strings"
	"unicode"
)

// maxUint256 bounds token ids: the contract's ids are uint256.
var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// ParseTokenID parses a decimal uint256 token id. ok is false when it is a valid uint256 that no seald
// contract can have minted (ids are counted from 1 in a uint64 range), which is a 404 rather than a 400.
func ParseTokenID(s string) (id uint64, ok bool, err error) {
	if s == "" {
		return 0, false, Errorf(EINVALID, "token_id is required")
	}
	if len(s) > 78 {
		return 0, false, Errorf(EINVALID, "token_id must be a decimal uint256")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false, Errorf(EINVALID, "token_id must be a decimal uint256")
		}
	}
	n, _ := new(big.Int).SetString(s, 10)
	if n == nil || n.Cmp(maxUint256) > 0 {
		return 0, false, Errorf(EINVALID, "token_id must be a decimal uint256")
	}
	if !n.IsUint64() || n.Sign() == 0 {
		return 0, false, nil
	}
	return n.Uint64(), true, nil
}

// ParseNetwork returns the canonical network name of a `blockchain` value (case-insensitive), POLYGON when
// empty.
func ParseNetwork(s string) (string, error) {
	switch strings.ToUpper(s) {
	case "", NetworkPolygon:
		return NetworkPolygon, nil
	case NetworkEOS:
		return NetworkEOS, nil
	}
	return "", Errorf(EINVALID, "blockchain must be POLYGON or EOS")
}

// ParseStatus parses a record status.
func ParseStatus(s string) (Status, error) {
	switch Status(s) {
	case StatusActive, StatusSuspended, StatusRevoked:
		return Status(s), nil
	}
	return "", Errorf(EINVALID, "status must be ACTIVE, SUSPENDED or REVOKED")
}

// HasControl reports whether s holds a control character other than TAB (C0, DEL or C1).
func HasControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r != '\t' && unicode.IsControl(r) }) >= 0
}

// Bounds of free text kept with a record or a tenant, in bytes.
const (
	MaxReason      = 1000 // a status change's reason, kept in the audit trail
	MaxName        = 200  // a business or project name
	MaxDescription = 2000 // a description, logo or website
)
