package credential

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/multiformats/go-multibase"
)

// multikeyEd25519 is the multicodec prefix of an Ed25519 public key (0xed, as an unsigned varint).
var multikeyEd25519 = []byte{0xed, 0x01}

// Multikey is the publicKeyMultibase of an Ed25519 public key: base58btc of the multicodec-prefixed key.
func Multikey(pub ed25519.PublicKey) string {
	s, _ := multibase.Encode(multibase.Base58BTC, append(append([]byte{}, multikeyEd25519...), pub...))
	return s
}

// ParseMultikey reads an Ed25519 publicKeyMultibase.
func ParseMultikey(s string) (ed25519.PublicKey, error) {
	enc, b, err := multibase.Decode(s)
	if err != nil || enc != multibase.Base58BTC || len(b) != 2+ed25519.PublicKeySize || b[0] != 0xed || b[1] != 0x01 {
		return nil, fmt.Errorf("%q is not an Ed25519 Multikey", s)
	}
	return ed25519.PublicKey(b[2:]), nil
}

// DIDWeb is the did:web DID of a public URL (did:web:host%3Aport[:path:segments]) and the URL of its DID
// document: {url}/.well-known/did.json without a path, {url}/did.json with one (the did:web method).
func DIDWeb(publicURL string) (did, document string, err error) {
	u, err := url.Parse(strings.TrimRight(publicURL, "/"))
	if err != nil || u.Host == "" {
		return "", "", fmt.Errorf("public URL %q has no host", publicURL)
	}
	did = "did:web:" + strings.ReplaceAll(u.Host, ":", "%3A")
	base := strings.TrimRight(publicURL, "/")
	if p := strings.Trim(u.Path, "/"); p != "" {
		return did + ":" + strings.ReplaceAll(p, "/", ":"), base + "/did.json", nil
	}
	return did, base + "/.well-known/did.json", nil
}

// VerificationKey is one key of a DID document.
type VerificationKey struct {
	ID     string // the fragment, without '#'
	Public ed25519.PublicKey
}

// DIDDocument is the DID document of did: each key a Multikey verification method allowed to make
// assertions (sign credentials). Retired keys stay listed so credentials they signed keep verifying.
func DIDDocument(did string, keys []VerificationKey) map[string]any {
	var vms, refs []any
	for _, k := range keys {
		id := did + "#" + k.ID
		vms = append(vms, map[string]any{"id": id, "type": "Multikey", "controller": did, "publicKeyMultibase": Multikey(k.Public)})
		refs = append(refs, id)
	}
	return map[string]any{
		"@context":           []any{"https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"},
		"id":                 did,
		"verificationMethod": vms,
		"assertionMethod":    refs,
	}
}

// ResolveIn is a Resolver over a DID document already fetched: the key of a verification method the
// document lists for assertionMethod.
func ResolveIn(doc map[string]any) Resolver {
	return func(vm string) (ed25519.PublicKey, error) {
		allowed := false
		if refs, ok := doc["assertionMethod"].([]any); ok {
			for _, r := range refs {
				if r == vm {
					allowed = true
				}
			}
		}
		if !allowed {
			return nil, fmt.Errorf("the issuer's DID document does not list %s for assertions", vm)
		}
		vms, _ := doc["verificationMethod"].([]any)
		for _, v := range vms {
			m, _ := v.(map[string]any)
			if m["id"] == vm {
				s, _ := m["publicKeyMultibase"].(string)
				return ParseMultikey(s)
			}
		}
		return nil, errors.New("the issuer's DID document has no verification method " + vm)
	}
}
