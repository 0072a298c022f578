package credential

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"
)

// ClaimError refuses sealed data whose member cannot be a credentialSubject claim: JSON-LD would give it a
// meaning other than "this member has this value" (a keyword, a term the VC context makes an IRI or a node
// id), drop it, or canonicalize it differently across libraries. Member is its JSON pointer (RFC 6901).
type ClaimError struct {
	Member string
	Reason string
}

func (e *ClaimError) Error() string {
	return fmt.Sprintf("member %q cannot be a credential claim: %s", e.Member, e.Reason)
}

// reservedTerms are the terms of the VC 2.0 context that apply at every depth of credentialSubject and change
// what a member means: id and type are the node's identity and class, the others are coerced to IRIs (so a
// plain string would be dropped).
var reservedTerms = map[string]string{
	"id":   "the VC 2.0 context makes it the subject's identifier (@id)",
	"type": "the VC 2.0 context makes it the subject's class (@type)",
	"aud":  "the VC 2.0 context makes its value an IRI", "iss": "the VC 2.0 context makes its value an IRI",
	"jku": "the VC 2.0 context makes its value an IRI", "kid": "the VC 2.0 context makes its value an IRI",
	"sub": "the VC 2.0 context makes its value an IRI", "x5u": "the VC 2.0 context makes its value an IRI",
	"cnf": "the VC 2.0 context gives it a meaning of its own (JWT confirmation)",
}

// CheckClaims refuses data (a JSON object decoded by encoding/json) that cannot be a credential subject as
// is, naming the first member at fault in document order of a sorted walk.
func CheckClaims(data map[string]any) error {
	return checkObject("", data)
}

func checkObject(ptr string, obj map[string]any) error {
	for _, k := range sortedKeys(obj) {
		p := ptr + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
		if err := checkName(k); err != "" {
			return &ClaimError{Member: p, Reason: err}
		}
		if err := checkValue(p, obj[k]); err != nil {
			return err
		}
	}
	return nil
}

func checkValue(p string, v any) error {
	switch v := v.(type) {
	case map[string]any:
		return checkObject(p, v)
	case []any:
		for i, e := range v {
			if err := checkValue(fmt.Sprintf("%s/%d", p, i), e); err != nil {
				return err
			}
		}
	case float64:
		// JSON-LD makes an integral number below 10^21 an xsd:integer; json-gold does so only within int64
		// and writes a larger one as an xsd:double, so the two canonical forms would differ.
		if a := math.Abs(v); a == math.Trunc(a) && a >= 1<<63 && a < 1e21 {
			return &ClaimError{Member: p, Reason: fmt.Sprintf("the integer %.0f lies between 2^63 and 10^21, which JSON-LD libraries canonicalize differently; seal it as a string", v)}
		}
	case string:
		for _, r := range v {
			// json-gold escapes only \t \n \r \" \\ in canonical N-Quads while RDFC-1.0 escapes every
			// control character: such a string would canonicalize differently in another library.
			if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f {
				return &ClaimError{Member: p, Reason: fmt.Sprintf("its value holds the control character U+%04X", r)}
			}
		}
	}
	return nil
}

// checkName returns why a member name cannot be a claim term, or "".
func checkName(k string) string {
	switch {
	case k == "":
		return "an empty name expands to no property"
	case strings.HasPrefix(k, "@"):
		return "a name beginning with @ is a JSON-LD keyword"
	case strings.Contains(k, ":"):
		return "a name with a colon is read by JSON-LD as an IRI or a compact IRI"
	case reservedTerms[k] != "":
		return reservedTerms[k]
	}
	for _, r := range k {
		if unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune("<>\"{}|^`\\#", r) {
			return fmt.Sprintf("the character %q cannot be part of the claim's IRI", r)
		}
	}
	return ""
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
