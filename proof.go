package seald

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"

	"strconv"
)

// ProofVersion is the format version of proof bundles; verifiers refuse bundles of versions they do not know.
const ProofVersion = 1

// Proof is a record's proof bundle: everything needed to check, without calling seald, that the data with
// this hash was anchored on the chain as this token, and that seald vouched for the record. It is the
// `proof` member of a verification result with ?proof=1, and the file `seald proof verify` reads.
type Proof struct {
	Version     int      `json:"version"`
	Reference   string   `json:"reference"`
	Hash        string   `json:"hash"`        // lowercase hex SHA-256 of the RFC 8785 canonical data
	CID         string   `json:"cid"`         // IPFS CID of the stored (encrypted) envelope
	Network     string   `json:"network"`     // POLYGON or EOS
	ChainID     string   `json:"chain_id"`    // decimal EIP-155 chain id
	Contract    string   `json:"contract"`    // SealRegistry address
	TokenID     string   `json:"token_id"`    // decimal
	Leaf        string   `json:"leaf"`        // 0x hex, the Merkle leaf binding token id and hash
	MerklePath  []string `json:"merkle_path"` // 0x hex nodes, leaf to root
	Root        string   `json:"root"`        // 0x hex Merkle root stored by the batch transaction
	TxHash      string   `json:"tx_hash"`
	BlockNumber uint64   `json:"block_number"`
	PublicKey   string   `json:"public_key"` // base64 (std) Ed25519 public key of the service
	Signature   string   `json:"signature"`  // base64 (std) Ed25519 signature over Digest()
}

// signedFields are the members of a proof that the service's signature covers. Field order is fixed here
// and the digest is computed over this struct's JSON, whose members are all strings: its encoding is
// already canonical, so no canonicalizer is needed to reproduce it.
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

// Digest is the record digest the service signs: SHA-256 over the JSON of the fields that identify the
// sealed record and where it is anchored. The Merkle path and block are not signed: the chain proves them.
func (p *Proof) Digest() [32]byte {
	b, _ := json.Marshal(signedFields{
		Version: strconv.Itoa(p.Version), Reference: p.Reference, Hash: p.Hash, CID: p.CID,
		Network: p.Network, ChainID: p.ChainID, Contract: p.Contract, TokenID: p.TokenID,
	})
	return sha256.Sum256(append([]byte("seald record digest\n"), b...))
}

// Sign sets PublicKey and Signature with the service's key.
func (p *Proof) Sign(s Signer) {
	d := p.Digest()
	p.PublicKey = base64.StdEncoding.EncodeToString(s.PublicKey())
	p.Signature = base64.StdEncoding.EncodeToString(s.Sign(d[:]))
}

// VerifySignature checks the signature against the public key in the bundle. Whether that key is the
// service's is for the verifier to decide (it is published at /.well-known/seald-key).
func (p *Proof) VerifySignature() error {
	pub, err := base64.StdEncoding.DecodeString(p.PublicKey)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return errors.New("public key is not a base64 Ed25519 key")
	}
	sig, err := base64.StdEncoding.DecodeString(p.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return errors.New("signature is not a base64 Ed25519 signature")
	}
	d := p.Digest()
	if !ed25519.Verify(pub, d[:], sig) {
		return errors.New("signature does not match the record digest")
	}
	return nil
}

// ParseProof decodes a proof bundle and checks its shape (not its truth). Anything that is not a bundle is
// an EINVALID error naming the member at fault.
func ParseProof(b []byte) (*Proof, error) {
	var p Proof
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, Errorf(EINVALID, "not a proof bundle: %v", err)
	}
	if p.Version != ProofVersion {
		return nil, Errorf(EINVALID, "proof bundle version %d is not supported (want %d)", p.Version, ProofVersion)
	}
	for _, f := range []struct{ name, v string }{
		{"reference", p.Reference}, {"hash", p.Hash}, {"network", p.Network}, {"chain_id", p.ChainID},
		{"contract", p.Contract}, {"token_id", p.TokenID}, {"leaf", p.Leaf}, {"root", p.Root},
		{"tx_hash", p.TxHash}, {"public_key", p.PublicKey}, {"signature", p.Signature},
	} {
		if f.v == "" {
			return nil, Errorf(EINVALID, "proof bundle: %s is missing", f.name)
		}
	}
	if !IsHash(p.Hash) {
		return nil, Errorf(EINVALID, "proof bundle: hash must be 64 lowercase hex digits")
	}
	if _, err := strconv.ParseUint(p.TokenID, 10, 64); err != nil {
		return nil, Errorf(EINVALID, "proof bundle: token_id %q is not a decimal token id", p.TokenID)
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
