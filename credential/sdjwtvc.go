package credential

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// SDJWTVCType is the typ of seald's SD-JWT VCs (SD-JWT VC draft: dc+sd-jwt).
const SDJWTVCType = "dc+sd-jwt"

// VCT is the vct (credential type) of seald's SD-JWT VCs.
const VCT = "https://seald.dev/credentials/sealed-record/v1"

// SDJWTFacts are what a record's SD-JWT VC states.
type SDJWTFacts struct {
	Issuer string // the issuer's DID
	// Payload is the record's SD payload (canonical JSON with _sd and _sd_alg): every member of the data is
	// already a selectively disclosable claim; Disclosures are all its encoded disclosures.
	Payload     []byte
	Disclosures []string
	IssuedAt    time.Time
	// StatusURI and StatusIndex name the record's entry in a status list token.
	StatusURI   string
	StatusIndex int
}

// IssueSDJWTVC signs f as an SD-JWT VC with every disclosure appended (JWT~d1~…~dn~): the holder removes the
// disclosures of the members it does not show. kid is the verification method (a DID URL) of the key.
func IssueSDJWTVC(f SDJWTFacts, k Key) (string, error) {
	var claims map[string]any
	if err := json.Unmarshal(f.Payload, &claims); err != nil {
		return "", fmt.Errorf("SD payload: %w", err)
	}
	for _, n := range []string{"iss", "vct", "iat", "status", "cnf", "nbf", "exp", "sub"} {
		// The SD builder hides every member behind _sd, so a plain claim of these names is not the data's.
		if _, ok := claims[n]; ok {
			return "", fmt.Errorf("SD payload already has the claim %q", n)
		}
	}
	claims["iss"] = f.Issuer
	claims["vct"] = VCT
	claims["iat"] = f.IssuedAt.Unix()
	claims["status"] = map[string]any{"status_list": map[string]any{"idx": f.StatusIndex, "uri": f.StatusURI}}
	jwt, err := signJWT(map[string]any{"alg": "EdDSA", "typ": SDJWTVCType, "kid": k.VerificationMethod}, claims, k.Sign)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(jwt)
	b.WriteByte('~')
	for _, d := range f.Disclosures {
		b.WriteString(d)
		b.WriteByte('~')
	}
	return b.String(), nil
}

// VerifyJWT checks the EdDSA signature of a compact JWT with the key resolve gives its kid, and its typ;
// it returns the payload.
func VerifyJWT(jwt, typ string, resolve Resolver) ([]byte, error) {
	header, payload, err := splitJWT(jwt)
	if err != nil {
		return nil, err
	}
	var h struct{ Alg, Typ, Kid string }
	if err := json.Unmarshal(header, &h); err != nil {
		return nil, err
	}
	if h.Alg != "EdDSA" || h.Typ != typ {
		return nil, fmt.Errorf("JWT is %s/%s, not EdDSA/%s", h.Alg, h.Typ, typ)
	}
	pub, err := resolve(h.Kid)
	if err != nil {
		return nil, err
	}
	seg := strings.Split(jwt, ".")
	sig, err := base64.RawURLEncoding.DecodeString(seg[2])
	if err != nil || !ed25519.Verify(pub, []byte(seg[0]+"."+seg[1]), sig) {
		return nil, errors.New("the JWT's signature does not verify")
	}
	return payload, nil
}
