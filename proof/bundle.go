package proof

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"seald.dev/seald/jcs"
)

// Version is the format version of the proof bundles seald makes. Version 3 adds the issuer block
// (issuer.go). Version 1 bundles (seald before the trust root) and version 2 ones (before the issuer block)
// are still read and checked exactly as before; verifiers refuse versions they do not know.
const Version = 3

// Bundle is a record's proof bundle: everything needed to check, without calling seald, that the data with
// this hash was anchored on the chain as this token, and that seald vouched for the record. It is the
// `proof` member of a verification result with ?proof=1, the file GET /v/{reference}/proof.json serves, and
// the file `seald proof verify` reads. Who the issuer is (its chain, contract, anchoring address and keys) is
// not taken from the bundle: a verifier checks the bundle against the issuer's trust root (TrustRoot).
type Bundle struct {
	Version     int      `json:"version"`
	Reference   string   `json:"reference"`
	Hash        string   `json:"hash"`        // lowercase hex SHA-256 of the RFC 8785 canonical data
	CID         string   `json:"cid"`         // IPFS CID of the stored (encrypted) envelope
	Network     string   `json:"network"`     // POLYGON or EOS
	ChainID     string   `json:"chain_id"`    // decimal EIP-155 chain id
	ChainName   string   `json:"chain_name"`  // the chain in words (seald.Chain.Name); says so for a development chain
	Contract    string   `json:"contract"`    // SealRegistry address
	TokenID     string   `json:"token_id"`    // decimal
	Leaf        string   `json:"leaf"`        // 0x hex, the Merkle leaf binding token id and hash
	MerklePath  []string `json:"merkle_path"` // 0x hex nodes, leaf to root
	Root        string   `json:"root"`        // 0x hex Merkle root stored by the batch transaction
	TxHash      string   `json:"tx_hash"`
	BlockNumber uint64   `json:"block_number"`
	KeyID       string   `json:"key_id"`     // KeyID of the signing key (version 2)
	PublicKey   string   `json:"public_key"` // base64 (std) Ed25519 public key of the service
	Signature   string   `json:"signature"`  // base64 (std) Ed25519 signature over Digest()
	// Manifest is the URL of the manifest of the bundle's batch (BatchManifest), for auditors. It is not
	// signed (Digest leaves it out, so bundles with and without it verify alike): the manifest is checked
	// against the chain, not against the issuer's word.
	Manifest string `json:"manifest,omitempty"`
	// Issuer is the business that sealed the record (version 3; absent before): covered by Signature but for
	// its own signature, which the business's key makes over the same Digest.
	Issuer *Issuer `json:"issuer,omitempty"`
}

// File is the bundle as the file the public page and the console download and `seald proof verify` reads:
// indented JSON ending in a newline, named after the record's reference.
func (p *Bundle) File() (name string, body []byte, err error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return "", nil, err
	}
	return p.Reference + ".proof.json", append(b, '\n'), nil
}

// KeyID names a signing key: the first 16 hex digits of the SHA-256 of its raw public key.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

// signedFields are the members of a version 1 proof that its signature covers, in a fixed order; all are
// strings, so their JSON is already canonical.
type signedFields struct {
	Version   string `json:"version"`
	Reference string `json:"reference"`
	Hash      string `json:"hash"`
	CID       string `json:"cid"`
	Network   string `json:"network"`
	ChainID   string `json:"chain_id"`
	Contract  string `json:"contract"`
	TokenID   string `json:"token_id"`
}

// Digest is what the service signs. Version 3: SHA-256 of "seald proof v3\n" followed by the RFC 8785
// canonical JSON of every member of the bundle but signature, manifest (an unsigned link) and the issuer
// block's signature, so that no other member can be changed without breaking the signature; the business's
// key signs the same digest. Version 2: the same with "seald proof v2\n" (a version 2 bundle has no issuer
// member). Version 1: SHA-256 over the JSON of the identifying members only.
func (p *Bundle) Digest() [32]byte {
	if p.Version == 1 {
		b, _ := json.Marshal(signedFields{
			Version: strconv.Itoa(p.Version), Reference: p.Reference, Hash: p.Hash, CID: p.CID,
			Network: p.Network, ChainID: p.ChainID, Contract: p.Contract, TokenID: p.TokenID,
		})
		return sha256.Sum256(append([]byte("seald record digest\n"), b...))
	}
	// The proof's members but signature and manifest: the outer Signature and Manifest, shallower than the
	// proof's own, hide them and are themselves omitted. jcs orders the members and sets their form.
	q := *p
	q.Issuer = unsignedIssuer(p.Issuer)
	b, _ := json.Marshal(struct {
		*proofMembers
		Signature *struct{} `json:"signature,omitempty"`
		Manifest  *struct{} `json:"manifest,omitempty"`
	}{proofMembers: (*proofMembers)(&q)})
	c, err := jcs.Canonicalize(b)
	if err != nil {
		c = b // unreachable: encoding/json's output always has a canonical form
	}
	prefix := "seald proof v2\n"
	if p.Version >= 3 {
		prefix = "seald proof v3\n"
	}
	return sha256.Sum256(append([]byte(prefix), c...))
}

// proofMembers is Bundle without its methods, to embed in Digest's view of it.
type proofMembers Bundle

// Signer signs digests with an issuer's current Ed25519 key; its public half is published in the trust root.
// The service's keys (package secret) are one; Sign and SignIssuerJWT take it so that no key bytes leave it.
type Signer interface {
	Sign(digest []byte) []byte
	PublicKey() ed25519.PublicKey
}

// Sign sets KeyID, PublicKey and Signature with the service's key.
func (p *Bundle) Sign(s Signer) {
	if p.Version >= 2 {
		p.KeyID = KeyID(s.PublicKey())
	}
	p.PublicKey = base64.StdEncoding.EncodeToString(s.PublicKey())
	d := p.Digest()
	p.Signature = base64.StdEncoding.EncodeToString(s.Sign(d[:]))
}

// VerifySignature checks the signature against the public key in the bundle, and that the key id names
// that key. Whether the key is the issuer's is for the trust root to say (TrustRoot.Check).
func (p *Bundle) VerifySignature() error {
	pub, err := base64.StdEncoding.DecodeString(p.PublicKey)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return refuse("public key is not a base64 Ed25519 key")
	}
	if p.Version >= 2 && p.KeyID != KeyID(pub) {
		return refuse("key_id %q does not name the bundle's public key (%s)", p.KeyID, KeyID(pub))
	}
	sig, err := base64.StdEncoding.DecodeString(p.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return refuse("signature is not a base64 Ed25519 signature")
	}
	d := p.Digest()
	if !ed25519.Verify(pub, d[:], sig) {
		return refuse("signature does not match the bundle")
	}
	return nil
}

// Parse decodes a proof bundle and checks its shape (not its truth). Anything that is not a bundle is
// refused, naming the member at fault.
func Parse(b []byte) (*Bundle, error) {
	var p Bundle
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, refuse("not a proof bundle: %v", err)
	}
	if p.Version < 1 || p.Version > Version {
		return nil, refuse("proof bundle version %d is not supported (seald reads 1 to %d)", p.Version, Version)
	}
	for _, f := range []struct{ name, v string }{
		{"reference", p.Reference}, {"hash", p.Hash}, {"network", p.Network}, {"chain_id", p.ChainID},
		{"contract", p.Contract}, {"token_id", p.TokenID}, {"leaf", p.Leaf}, {"root", p.Root},
		{"tx_hash", p.TxHash}, {"public_key", p.PublicKey}, {"signature", p.Signature},
	} {
		if f.v == "" {
			return nil, refuse("proof bundle: %s is missing", f.name)
		}
	}
	if !IsHash(p.Hash) {
		return nil, refuse("proof bundle: hash must be 64 lowercase hex digits")
	}
	switch {
	case p.Version < 3 && p.Issuer != nil:
		return nil, refuse("proof bundle: version %d has no issuer member; a bundle with one is version 3", p.Version)
	case p.Version >= 3 && p.Issuer == nil:
		return nil, refuse("proof bundle: issuer is missing")
	case p.Version >= 3:
		if err := CheckIssuerShape(p.Issuer); err != nil {
			return nil, refuse("proof bundle: %v", err)
		}
	}
	if _, err := strconv.ParseUint(p.TokenID, 10, 64); err != nil {
		return nil, refuse("proof bundle: token_id %q is not a decimal token id", p.TokenID)
	}
	return &p, nil
}

// IsHash reports whether s is 64 lowercase hex digits.
func IsHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
