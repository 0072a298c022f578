package didweb

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/multiformats/go-multibase"
)

// The JSON-LD contexts of the document: DID Core, and the Multikey vocabulary of its verification methods.
const (
	ContextDID      = "https://www.w3.org/ns/did/v1"
	ContextMultikey = "https://w3id.org/security/multikey/v1"
)

// Verification method types this package reads: Multikey (what it writes, and what the W3C Data Integrity
// cryptosuite eddsa-rdfc-2022 names), and the JsonWebKey forms some publishers use.
const (
	TypeMultikey       = "Multikey"
	TypeJsonWebKey     = "JsonWebKey"
	TypeJsonWebKey2020 = "JsonWebKey2020"
	TypeEd25519_2020   = "Ed25519VerificationKey2020"
)

// MaxDocument bounds a DID document in bytes, when it is fetched and when it is parsed: a business's document
// lists a few keys, far below it.
const MaxDocument = 64 << 10

// ed25519Multicodec is the multicodec prefix of an Ed25519 public key (ed25519-pub, 0xed, as an unsigned
// varint): the two bytes that make every base58btc Multikey of such a key start "z6Mk".
var ed25519Multicodec = []byte{0xed, 0x01}

// Key is one Ed25519 key of a DID document: Fragment names its verification method (did#fragment).
type Key struct {
	Fragment string
	Public   ed25519.PublicKey
}

// Document is a DID document as this package writes and reads it. Members it does not know are ignored on
// reading.
type Document struct {
	Context            []string             `json:"@context"`
	ID                 string               `json:"id"`
	VerificationMethod []VerificationMethod `json:"verificationMethod"`
	// AssertionMethod lists the methods the DID's controller issues statements with (credentials, proofs):
	// references (a method's id) or methods written out; a key that signs seald's proofs is listed here.
	AssertionMethod []MethodRef `json:"assertionMethod"`
}

// VerificationMethod is one key of a document.
type VerificationMethod struct {
	ID                 string `json:"id"`
	Type               string `json:"type"`
	Controller         string `json:"controller"`
	PublicKeyMultibase string `json:"publicKeyMultibase,omitempty"`
	PublicKeyJwk       *JWK   `json:"publicKeyJwk,omitempty"`
}

// JWK is the part of a JSON Web Key (RFC 8037) an Ed25519 key needs.
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
}

// MethodRef is an entry of a verification relationship: a method's id, or the method itself.
type MethodRef struct {
	ID     string
	Method *VerificationMethod
}

// MarshalJSON writes a reference as its id, a method written out as the method.
func (m MethodRef) MarshalJSON() ([]byte, error) {
	if m.Method != nil {
		return json.Marshal(m.Method)
	}
	return json.Marshal(m.ID)
}

// UnmarshalJSON reads either form.
func (m *MethodRef) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte(`"`)) {
		return json.Unmarshal(b, &m.ID)
	}
	var vm VerificationMethod
	if err := json.Unmarshal(b, &vm); err != nil {
		return err
	}
	m.ID, m.Method = vm.ID, &vm
	return nil
}

// Multibase is the publicKeyMultibase of an Ed25519 key: base58btc ("z") of the ed25519-pub multicodec and
// the 32 key bytes.
func Multibase(pub ed25519.PublicKey) string {
	s, err := multibase.Encode(multibase.Base58BTC, append(append([]byte(nil), ed25519Multicodec...), pub...))
	if err != nil {
		panic(err) // only an unknown encoding fails
	}
	return s
}

// ParseMultibase reads the publicKeyMultibase of an Ed25519 key.
func ParseMultibase(s string) (ed25519.PublicKey, error) {
	enc, b, err := multibase.Decode(s)
	if err != nil {
		return nil, fmt.Errorf("publicKeyMultibase %q is not multibase: %v", s, err)
	}
	if enc != multibase.Base58BTC {
		return nil, fmt.Errorf("publicKeyMultibase %q is not base58btc (it must start with z)", s)
	}
	if !bytes.HasPrefix(b, ed25519Multicodec) || len(b) != len(ed25519Multicodec)+ed25519.PublicKeySize {
		return nil, fmt.Errorf("publicKeyMultibase %q is not an Ed25519 public key (z6Mk...)", s)
	}
	return ed25519.PublicKey(b[len(ed25519Multicodec):]), nil
}

// PublicKey returns the Ed25519 key of a verification method, of any type this package reads.
func (vm *VerificationMethod) PublicKey() (ed25519.PublicKey, error) {
	switch vm.Type {
	case TypeMultikey, TypeEd25519_2020:
		return ParseMultibase(vm.PublicKeyMultibase)
	case TypeJsonWebKey, TypeJsonWebKey2020:
		j := vm.PublicKeyJwk
		if j == nil || j.Kty != "OKP" || j.Crv != "Ed25519" {
			return nil, fmt.Errorf("method %s: publicKeyJwk is not an Ed25519 key (kty OKP, crv Ed25519)", vm.ID)
		}
		b, err := base64.RawURLEncoding.DecodeString(j.X)
		if err != nil || len(b) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("method %s: publicKeyJwk x is not 32 bytes of base64url", vm.ID)
		}
		return ed25519.PublicKey(b), nil
	}
	return nil, fmt.Errorf("method %s: type %q is not one of Multikey, JsonWebKey, JsonWebKey2020, Ed25519VerificationKey2020", vm.ID, vm.Type)
}

// NewDocument is the DID document of did holding keys (the current one first, older ones after it, so that
// what they signed keeps verifying), each a Multikey method listed for assertions.
func NewDocument(did string, keys []Key) *Document {
	d := &Document{Context: []string{ContextDID, ContextMultikey}, ID: did,
		VerificationMethod: []VerificationMethod{}, AssertionMethod: []MethodRef{}}
	for _, k := range keys {
		id := did + "#" + k.Fragment
		d.VerificationMethod = append(d.VerificationMethod, VerificationMethod{
			ID: id, Type: TypeMultikey, Controller: did, PublicKeyMultibase: Multibase(k.Public)})
		d.AssertionMethod = append(d.AssertionMethod, MethodRef{ID: id})
	}
	return d
}

// Parse reads a DID document. It checks only that it is one: a JSON object of at most MaxDocument bytes with
// an id; Check says whether it is the one expected.
func Parse(b []byte) (*Document, error) {
	if len(b) > MaxDocument {
		return nil, fmt.Errorf("the DID document is larger than %d bytes", MaxDocument)
	}
	var d Document
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("the DID document is not a JSON DID document: %v", err)
	}
	if d.ID == "" {
		return nil, errors.New("the DID document has no id")
	}
	return &d, nil
}

// ErrKeyMissing is the error of a document that names the DID but does not hold the key for assertions.
var ErrKeyMissing = errors.New("the DID document does not list the key for assertions")

// Check reports whether d is the document of did and holds pub in a verification method of did's controller
// listed in assertionMethod; it returns that method's id. Every refusal says why.
func (d *Document) Check(did string, pub ed25519.PublicKey) (string, error) {
	if d.ID != did {
		return "", fmt.Errorf("the DID document is the document of %q, not of %q", d.ID, did)
	}
	methods := map[string]*VerificationMethod{}
	for i := range d.VerificationMethod {
		vm := &d.VerificationMethod[i]
		methods[absolute(did, vm.ID)] = vm
	}
	for _, ref := range d.AssertionMethod {
		vm := ref.Method
		if vm == nil {
			vm = methods[absolute(did, ref.ID)]
		}
		if vm == nil || vm.Controller != did {
			continue
		}
		k, err := vm.PublicKey()
		if err != nil {
			continue // another method of a kind this package does not read says nothing about this key
		}
		if k.Equal(pub) {
			return absolute(did, vm.ID), nil
		}
	}
	return "", fmt.Errorf("%w: no method of %s with controller %s holds %s", ErrKeyMissing, did, did, Multibase(pub))
}

// Keys lists the Ed25519 keys of d's methods listed for assertions and controlled by d.ID, by method id: the
// keys a verifier accepts for statements of that DID.
func (d *Document) Keys() map[string]ed25519.PublicKey {
	methods := map[string]*VerificationMethod{}
	for i := range d.VerificationMethod {
		methods[absolute(d.ID, d.VerificationMethod[i].ID)] = &d.VerificationMethod[i]
	}
	out := map[string]ed25519.PublicKey{}
	for _, ref := range d.AssertionMethod {
		vm := ref.Method
		if vm == nil {
			vm = methods[absolute(d.ID, ref.ID)]
		}
		if vm == nil || vm.Controller != d.ID {
			continue
		}
		if k, err := vm.PublicKey(); err == nil {
			out[absolute(d.ID, vm.ID)] = k
		}
	}
	return out
}

// absolute resolves a relative method id ("#key-1") against the DID.
func absolute(did, id string) string {
	if strings.HasPrefix(id, "#") {
		return did + id
	}
	return id
}
