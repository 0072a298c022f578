package proof

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"
)

// The SD-JWT form (RFC 9901) of a disclosure package and of its presentations, so that an SD-JWT library
// nobody here wrote reads and verifies the disclosed members. The issuer-signed JWT has the header
// {"alg": "EdDSA", "typ": "sd+jwt", "kid": KeyID of the signing key} and, as its payload, the record's SD
// payload (the same _sd digests and _sd_alg whose SHA-256 is the anchored commitment) with these plain claims:
//
//	iss         the issuer (the trust root's issuer: the service's public URL)
//	iat         when the record was sealed (seconds)
//	seald       {"network", "chain_id", "contract", "token_id", "commitment"}: where the commitment is anchored
//	seald_issuer  the business that sealed it (Issuer, issuer.go), signed by its domain's key when verified
//
// It is signed with the service's current Ed25519 signing key, whose public half the trust root lists. The
// package's form is the JWT followed by every disclosure ("JWT~d1~…~dn~"); a presentation's, by the chosen
// ones only. There is no key binding: as with the JSON presentation, whoever holds it can show it.

// SDJWTType is the typ of seald's issuer-signed JWTs.
const SDJWTType = "sd+jwt"

// SignIssuerJWT makes the issuer-signed JWT of a record's SD payload with the claims above: issuer is the
// trust root's issuer, sealed when the record was sealed, a where its commitment is anchored, and s the
// issuer's current signing key.
func SignIssuerJWT(payload []byte, issuer string, sealed time.Time, a DisclosureAnchor, commitment string, s Signer) (string, error) {
	return SignIssuerJWTBy(payload, issuer, sealed, a, commitment, s, nil, nil)
}

// SignIssuerJWTBy is SignIssuerJWT with the business that sealed the record in the seald_issuer claim (issue
// 41): who, signed with priv over SDJWTIssuerDigest when its domain is verified. A nil who adds no claim.
func SignIssuerJWTBy(payload []byte, issuer string, sealed time.Time, a DisclosureAnchor, commitment string, s Signer,
	who *Issuer, priv ed25519.PrivateKey) (string, error) {
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		return "", refuse("sd_payload: %v", err)
	}
	claims["iss"] = issuer
	claims["iat"] = sealed.Unix()
	claims["seald"] = map[string]string{"network": a.Network, "chain_id": a.ChainID, "contract": a.Contract,
		"token_id": a.TokenID, "commitment": commitment}
	if who != nil {
		who = unsignedIssuer(who)
		claims[SDJWTIssuerClaim] = who
		if who.Status == IssuerDomainVerified && priv != nil {
			unsigned, _ := json.Marshal(claims)
			d, err := SDJWTIssuerDigest(unsigned)
			if err != nil {
				return "", err
			}
			signIssuer(who, priv, d)
		}
	}
	header, _ := json.Marshal(map[string]string{"alg": "EdDSA", "typ": SDJWTType, "kid": KeyID(s.PublicKey())})
	body, _ := json.Marshal(claims) // values just decoded always encode again
	input := base64.RawURLEncoding.EncodeToString(header) + "." + base64.RawURLEncoding.EncodeToString(body)
	return input + "." + base64.RawURLEncoding.EncodeToString(s.Sign([]byte(input))), nil
}

// JoinSDJWT joins an issuer JWT and disclosures into an SD-JWT without key binding: "JWT~d1~…~dn~".
func JoinSDJWT(jwt string, disclosures []string) string {
	var b strings.Builder
	b.WriteString(jwt)
	b.WriteByte('~')
	for _, d := range disclosures {
		b.WriteString(d)
		b.WriteByte('~')
	}
	return b.String()
}

// CheckSDJWT checks the SD-JWT form of a presentation against the presentation itself and the issuer's
// keys: the JWT is signed by one of keys (EdDSA), its _sd and _sd_alg are the presentation's payload, its
// seald claim names the presentation's anchor and commitment, and its disclosures are the presentation's.
// It returns the id of the key that signed it.
func (p *Presentation) CheckSDJWT(commitment string, keys map[string]ed25519.PublicKey) (string, error) {
	parts := strings.Split(p.SDJWT, "~")
	if len(parts) < 2 || parts[len(parts)-1] != "" {
		return "", refuse("sd_jwt is not an SD-JWT without key binding (JWT~disclosures~)")
	}
	seg := strings.Split(parts[0], ".")
	if len(seg) != 3 {
		return "", refuse("sd_jwt: the issuer JWT is not a compact JWS")
	}
	hb, err1 := base64.RawURLEncoding.DecodeString(seg[0])
	_, err2 := base64.RawURLEncoding.DecodeString(seg[1])
	sig, err3 := base64.RawURLEncoding.DecodeString(seg[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return "", refuse("sd_jwt: the issuer JWT is not base64url")
	}
	var h struct{ Alg, Typ, Kid string }
	if json.Unmarshal(hb, &h) != nil || h.Alg != "EdDSA" {
		return "", refuse("sd_jwt: the issuer JWT is not EdDSA")
	}
	pub, ok := keys[h.Kid]
	if !ok {
		return "", refuse("sd_jwt: signed by key %q, which the issuer does not list", h.Kid)
	}
	if !ed25519.Verify(pub, []byte(seg[0]+"."+seg[1]), sig) {
		return "", refuse("sd_jwt: the issuer's signature does not match")
	}
	if _, err := p.sdjwtClaims(commitment); err != nil {
		return "", err
	}
	return h.Kid, nil
}

// sdjwtClaims checks, without any signature, that the SD-JWT says what the presentation says: its _sd and
// _sd_alg are the presentation's payload, its seald claim names the presentation's anchor and commitment, and
// its disclosures are the presentation's. It returns the JWT's payload.
func (p *Presentation) sdjwtClaims(commitment string) ([]byte, error) {
	parts := strings.Split(p.SDJWT, "~")
	if len(parts) < 2 || parts[len(parts)-1] != "" {
		return nil, refuse("sd_jwt is not an SD-JWT without key binding (JWT~disclosures~)")
	}
	discl := parts[1 : len(parts)-1]
	pb, err := jwtPayload(p.SDJWT)
	if err != nil {
		return nil, err
	}
	var claims struct {
		SD    json.RawMessage   `json:"_sd"`
		Alg   string            `json:"_sd_alg"`
		Seald map[string]string `json:"seald"`
	}
	var payload struct {
		SD  json.RawMessage `json:"_sd"`
		Alg string          `json:"_sd_alg"`
	}
	if json.Unmarshal(pb, &claims) != nil || json.Unmarshal(p.SDPayload, &payload) != nil ||
		string(compactJSON(claims.SD)) != string(compactJSON(payload.SD)) || claims.Alg != payload.Alg {
		return nil, refuse("sd_jwt: its _sd digests are not the presentation's payload")
	}
	want := map[string]string{"network": p.Network, "chain_id": p.ChainID, "contract": p.Contract, "token_id": p.TokenID, "commitment": commitment}
	for k, v := range want {
		if !strings.EqualFold(claims.Seald[k], v) {
			return nil, refuse("sd_jwt: its seald.%s is %q, not the presentation's %q", k, claims.Seald[k], v)
		}
	}
	if strings.Join(discl, "~") != strings.Join(p.Disclosures, "~") {
		return nil, refuse("sd_jwt: its disclosures are not the presentation's")
	}
	return pb, nil
}

// compactJSON is b without insignificant space, to compare two encodings of the same _sd array.
func compactJSON(b json.RawMessage) []byte {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	out, _ := json.Marshal(v)
	return out
}

// SigningKeys are the issuer's signing keys not marked compromised, by key id: those a signature may be
// checked with. Whether a retired one is trusted depends on when the anchor was made (CheckPresentation).
func (t *TrustRoot) SigningKeys() map[string]ed25519.PublicKey {
	out := map[string]ed25519.PublicKey{}
	for _, k := range t.Keys {
		pub, err := base64.StdEncoding.DecodeString(k.PublicKey)
		if err != nil || len(pub) != ed25519.PublicKeySize || k.Status == "compromised" {
			continue
		}
		out[k.KeyID] = pub
	}
	return out
}

// CheckPresentation checks that a presentation carries the issuer's signature, as a bundle does: its sd_jwt
// is signed by a key of t not marked compromised and says what the presentation says (CheckSDJWT),
// commitment being the commitment the chain confirmed, and a retired key signed it only for an anchor made
// before its retirement (anchored is the anchor's block time, from the chain; the same rule as
// TrustMatch.CheckChain for a bundle). The anchor alone is not enough: it proves that the anchoring address
// stored a commitment, not that the issuer made the payload that hashes to it. It returns the signing key.
func (t *TrustRoot) CheckPresentation(p *Presentation, commitment string, anchored time.Time) (TrustKey, error) {
	if p.SDJWT == "" {
		return TrustKey{}, refuse("it carries no sd_jwt, the issuer's signature: a presentation, like a bundle, " +
			"must be signed by the issuer's signing key")
	}
	kid, err := p.CheckSDJWT(commitment, t.SigningKeys())
	if err != nil {
		return TrustKey{}, err
	}
	for _, k := range t.Keys {
		if k.KeyID != kid {
			continue
		}
		if after, why := k.RetiredFor(p.ChainID, p.BlockNumber, anchored); after {
			return TrustKey{}, refuse("sd_jwt: signed by key %s, which %s: a retired key is trusted only for anchors made "+
				"before its retirement", k.KeyID, why)
		}
		return k, nil
	}
	return TrustKey{}, refuse("sd_jwt: signed by key %q, which the issuer does not list", kid)
}
