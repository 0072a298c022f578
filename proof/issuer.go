package proof

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"

	"seald.dev/seald/jcs"
	"seald.dev/seald/wire"
)

// Issuer is who sealed a record, inside what the service signs (issue 41): a bundle's `issuer` member
// (version 3), and the `seald_issuer` claim of an issuer-signed SD-JWT (so of every presentation made from
// it). The service's signature says "this service anchored it, for this business"; a business that proved a
// domain with did:web also signs, with its key from that domain's DID document, so that a verifier who trusts
// the domain, not the service, can check it (`seald proof verify --issuer DOMAIN`).
//
// Status is IssuerDomainVerified, with DID, VerifiedAt, KeyID (the business's verification method,
// did:web:acme.example#key-…) and Signature (the business key's Ed25519 signature, base64 (std), over the
// same digest the service signs: Bundle.Digest, for an SD-JWT SDJWTIssuerDigest, which leave it out), or
// IssuerSelfDeclared, with none of them: the name is then only what the business told the service. The type
// is wire.ProofIssuer, so that the API's proof is the bundle.
type Issuer = wire.ProofIssuer

// Issuer statuses.
const (
	IssuerDomainVerified = "domain-verified"
	IssuerSelfDeclared   = "self-declared"
)

// didWebPrefix starts every did:web DID (package didweb, which proof may not import).
const didWebPrefix = "did:web:"

// Domain is the domain of a did:web DID for people ("did:web:127.0.0.1%3A8443" → "127.0.0.1:8443",
// "did:web:acme.example:dept" → "acme.example/dept"); "" for anything else.
func Domain(did string) string {
	rest, ok := strings.CutPrefix(did, didWebPrefix)
	if !ok || rest == "" {
		return ""
	}
	parts := strings.Split(rest, ":")
	parts[0] = strings.Replace(strings.Replace(parts[0], "%3A", ":", 1), "%3a", ":", 1)
	return strings.Join(parts, "/")
}

// CheckIssuerShape checks that the block says one thing: a verified domain with its DID, time, key and
// signature, or a self-declared name with none of them.
func CheckIssuerShape(i *Issuer) error {
	if i.BusinessID == "" || strings.TrimSpace(i.Name) == "" {
		return refuse("issuer: business_id or name is missing")
	}
	switch i.Status {
	case IssuerDomainVerified:
		switch {
		case Domain(i.DID) == "":
			return refuse("issuer: did %q is not a did:web DID", i.DID)
		case i.VerifiedAt == nil:
			return refuse("issuer: a domain-verified issuer has no verified_at")
		case !strings.HasPrefix(i.KeyID, i.DID+"#"):
			return refuse("issuer: key_id %q is not a key of %s", i.KeyID, i.DID)
		case i.Signature == "":
			return refuse("issuer: a domain-verified issuer carries no signature by its key")
		}
	case IssuerSelfDeclared:
		if i.DID != "" || i.VerifiedAt != nil || i.KeyID != "" || i.Signature != "" {
			return refuse("issuer: a self-declared issuer names no domain, key or signature")
		}
	default:
		return refuse("issuer: status %q is not %s or %s", i.Status, IssuerDomainVerified, IssuerSelfDeclared)
	}
	return nil
}

// unsignedIssuer is the block as digests cover it: without its signature.
func unsignedIssuer(i *Issuer) *Issuer {
	if i == nil {
		return nil
	}
	c := *i
	c.Signature = ""
	return &c
}

// DescribeIssuer is the block for people: "Sealed by Acme University, acme.example, domain verified on
// 2026-11-29" or "Sealed by Acme (self-declared name; no verified domain)".
func DescribeIssuer(i *Issuer) string {
	if i == nil {
		return "Sealed by an unnamed business (this file is older than issuer blocks)"
	}
	if i.Status == IssuerDomainVerified && i.VerifiedAt != nil {
		return "Sealed by " + i.Name + ", " + Domain(i.DID) + ", domain verified on " + i.VerifiedAt.UTC().Format("2006-01-02")
	}
	return "Sealed by " + i.Name + " (self-declared name; no verified domain)"
}

// signIssuer sets the block's Signature: the business key's signature over digest.
func signIssuer(i *Issuer, priv ed25519.PrivateKey, digest [32]byte) {
	i.Signature = base64.StdEncoding.EncodeToString(ed25519.Sign(priv, digest[:]))
}

// CheckIssuer checks that the block i names did (did:web:DOMAIN) as a verified domain and carries a signature
// over digest by one of keys, the keys the DID document lists for assertions by method id (didweb's
// Document.Keys). Every refusal says why.
func CheckIssuer(i *Issuer, did string, digest [32]byte, keys map[string]ed25519.PublicKey) error {
	if i == nil {
		return refuse("it names no issuer (a file made before issuer blocks): it is not signed by %s's key", Domain(did))
	}
	if err := CheckIssuerShape(i); err != nil {
		return err
	}
	if i.Status != IssuerDomainVerified {
		return refuse("it was sealed by %q, a self-declared name with no verified domain: it is not signed by %s's key", i.Name, Domain(did))
	}
	if i.DID != did {
		return refuse("it was sealed by %s (%s), not by %s", i.Name, i.DID, did)
	}
	sig, err := base64.StdEncoding.DecodeString(i.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return refuse("issuer: signature is not a base64 Ed25519 signature")
	}
	pub, ok := keys[i.KeyID]
	if !ok {
		return refuse("it is signed by key %s, which the DID document of %s does not list for assertions", i.KeyID, did)
	}
	if !ed25519.Verify(pub, digest[:], sig) {
		return refuse("the signature by %s's key %s does not match this file: the issuer block was not made for it", Domain(did), i.KeyID)
	}
	return nil
}

// CheckIssuer checks the bundle's issuer block against a DID document's keys (CheckIssuer).
func (p *Bundle) CheckIssuer(did string, keys map[string]ed25519.PublicKey) error {
	if p.Version < 3 {
		return refuse("proof bundle version %d names no issuer: it is not signed by %s's key", p.Version, Domain(did))
	}
	return CheckIssuer(p.Issuer, did, p.Digest(), keys)
}

// SignAs signs a bundle for the business iss (version 3): it sets the issuer block, signs the bundle with the
// service's key (Sign), then, when the domain is verified, with the business's key priv over the same digest.
// Neither signature covers the other; the digest covers the key id and public key Sign sets.
func (p *Bundle) SignAs(s Signer, iss *Issuer, priv ed25519.PrivateKey) {
	p.Issuer = iss
	p.Sign(s)
	if iss != nil && iss.Status == IssuerDomainVerified && priv != nil {
		signIssuer(iss, priv, p.Digest())
	}
}

// SDJWTIssuerClaim is the claim of an issuer-signed JWT that holds its Issuer.
const SDJWTIssuerClaim = "seald_issuer"

// SDJWTIssuerDigest is what a business signs in an SD-JWT: SHA-256 of "seald sd-jwt issuer v1\n" followed by
// the RFC 8785 canonical JSON of the JWT's claims, the seald_issuer claim without its signature. The service's
// JWS covers the whole payload, signature included.
func SDJWTIssuerDigest(payload []byte) ([32]byte, error) {
	var claims map[string]json.RawMessage
	if err := json.Unmarshal(payload, &claims); err != nil {
		return [32]byte{}, refuse("sd_jwt: its payload is not a JSON object")
	}
	if raw, ok := claims[SDJWTIssuerClaim]; ok {
		var iss Issuer
		if err := json.Unmarshal(raw, &iss); err != nil {
			return [32]byte{}, refuse("sd_jwt: its %s claim is not an issuer", SDJWTIssuerClaim)
		}
		b, _ := json.Marshal(unsignedIssuer(&iss))
		claims[SDJWTIssuerClaim] = b
	}
	b, _ := json.Marshal(claims) // raw members just decoded always encode again
	c, err := jcs.Canonicalize(b)
	if err != nil {
		return [32]byte{}, refuse("sd_jwt: %v", err)
	}
	return sha256.Sum256(append([]byte("seald sd-jwt issuer v1\n"), c...)), nil
}

// jwtPayload returns the payload of an SD-JWT's issuer JWT, unverified.
func jwtPayload(sdjwt string) ([]byte, error) {
	jwt, _, _ := strings.Cut(sdjwt, "~")
	seg := strings.Split(jwt, ".")
	if len(seg) != 3 {
		return nil, refuse("sd_jwt: the issuer JWT is not a compact JWS")
	}
	b, err := base64.RawURLEncoding.DecodeString(seg[1])
	if err != nil {
		return nil, refuse("sd_jwt: the issuer JWT is not base64url")
	}
	return b, nil
}

// SDJWTIssuer returns the issuer block of an SD-JWT (nil for one made before issuer blocks) and the digest its
// business signature covers. It does not check the service's JWS: CheckSDJWT does.
func SDJWTIssuer(sdjwt string) (*Issuer, [32]byte, error) {
	payload, err := jwtPayload(sdjwt)
	if err != nil {
		return nil, [32]byte{}, err
	}
	var claims map[string]json.RawMessage
	if err := json.Unmarshal(payload, &claims); err != nil {
		return nil, [32]byte{}, refuse("sd_jwt: its payload is not a JSON object")
	}
	raw, ok := claims[SDJWTIssuerClaim]
	if !ok {
		return nil, [32]byte{}, nil
	}
	var iss Issuer
	if err := json.Unmarshal(raw, &iss); err != nil {
		return nil, [32]byte{}, refuse("sd_jwt: its %s claim is not an issuer", SDJWTIssuerClaim)
	}
	if err := CheckIssuerShape(&iss); err != nil {
		return nil, [32]byte{}, refuse("sd_jwt: %v", err)
	}
	d, err := SDJWTIssuerDigest(payload)
	return &iss, d, err
}

// Issuer returns the presentation's issuer block, from its SD-JWT (SDJWTIssuer): nil for a presentation
// made before issuer blocks, or without an sd_jwt.
func (p *Presentation) Issuer() (*Issuer, error) {
	if p.SDJWT == "" {
		return nil, nil
	}
	iss, _, err := SDJWTIssuer(p.SDJWT)
	return iss, err
}

// CheckIssuer checks the presentation's issuer block, in its SD-JWT, against a DID document's keys: the SD-JWT
// must say what the presentation says (its _sd digests, its anchor, commitment, the commitment of its
// payload, and its disclosures, as CheckSDJWT checks), and the business's signature must cover its claims.
// The service's own signature is CheckSDJWT's to check, against the trust root.
func (p *Presentation) CheckIssuer(did, commitment string, keys map[string]ed25519.PublicKey) error {
	if p.SDJWT == "" {
		return refuse("it carries no sd_jwt, so no issuer block: it is not signed by %s's key", Domain(did))
	}
	if _, err := p.sdjwtClaims(commitment); err != nil {
		return err
	}
	iss, d, err := SDJWTIssuer(p.SDJWT)
	if err != nil {
		return err
	}
	return CheckIssuer(iss, did, d, keys)
}
