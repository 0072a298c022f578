package seald

import (
	"math/big"
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"
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

// dotAtom reports whether a local part is an RFC 5322 dot-atom: atext runs joined by single dots.
func dotAtom(local string) bool {
	for _, run := range strings.Split(local, ".") {
		if run == "" || strings.IndexFunc(run, func(r rune) bool {
			return r <= ' ' || r == 0x7f || strings.ContainsRune(`"(),:;<>@[\]`, r)
		}) >= 0 {
			return false
		}
	}
	return true
}

// hasControl reports whether s holds a control character other than TAB (C0, DEL or C1).
func hasControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r != '\t' && unicode.IsControl(r) }) >= 0
}

// checkText refuses text that is not valid UTF-8 or holds a control character (NUL, ESC, C1...), naming the
// member and the character: a name is shown on the verification page, in e-mails and in terminals, where
// those characters cut, hide or rewrite what is around them. Only a description keeps TAB and LF.
func checkText(member, v string, multiline bool) error {
	if !utf8.ValidString(v) {
		return Errorf(EINVALID, "%s is not valid UTF-8 text", member)
	}
	i := strings.IndexFunc(v, func(r rune) bool { return unicode.IsControl(r) && !(multiline && (r == '\t' || r == '\n')) })
	if i >= 0 {
		r, _ := utf8.DecodeRuneInString(v[i:])
		return Errorf(EINVALID, "%s must not contain control characters (U+%04X at byte %d)", member, r, i)
	}
	return nil
}

// Bounds of free text kept with a record or a tenant, in bytes.
const (
	MaxReason      = 1000 // a status change's reason, kept in the audit trail
	MaxName        = 200  // a business or project name
	MaxDescription = 2000 // a description, logo or website
)

// checkLength refuses a member longer than max bytes, naming the member and the limit.
func checkLength(member, v string, max int) error {
	if len(v) > max {
		return Errorf(EINVALID, "%s is longer than %d bytes", member, max)
	}
	return nil
}

// parseAddresses parses one address or a comma-separated list for the named member. A CR or LF anywhere is
// refused first: header injection.
func parseAddresses(member, v string, required bool) ([]string, error) {
	if strings.ContainsAny(v, "\r\n") {
		return nil, Errorf(EINVALID, "%s must not contain CR or LF", member)
	}
	if strings.TrimSpace(v) == "" {
		if required {
			return nil, Errorf(EINVALID, "%s is required", member)
		}
		return nil, nil
	}
	list, err := mail.ParseAddressList(v)
	if err != nil {
		return nil, Errorf(EINVALID, "%s is not a valid e-mail address: %s", member, v)
	}
	out := make([]string, 0, len(list))
	for _, a := range list {
		at := strings.LastIndexByte(a.Address, '@')
		if at <= 0 || at == len(a.Address)-1 {
			return nil, Errorf(EINVALID, "%s is not a valid e-mail address: %s", member, a.Address)
		}
		if !dotAtom(a.Address[:at]) {
			// A local part that needs quoting ("john doe"@...) is valid RFC 5322 but refused by the mailer:
			// refused here, so that the record does not fail later.
			return nil, Errorf(EINVALID, "%s: a local part that needs quoting is not supported: %s", member, a.Address)
		}
		if a.Name == "" {
			out = append(out, a.Address)
		} else {
			out = append(out, a.String())
		}
	}
	if len(out) > 50 {
		return nil, Errorf(EINVALID, "%s has more than 50 addresses", member)
	}
	return out, nil
}
