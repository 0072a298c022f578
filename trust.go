package seald

import (
	"cmp"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// TrustRootVersion is the format version of trust root documents.
const TrustRootVersion = 1

// TrustRoot is an issuer's published identity: for each network the chain, contract and anchoring address
// it uses, and every key it signs proof bundles with, retired ones included so that old bundles still
// verify. A verifier gets it from the issuer once, by a channel it trusts (/.well-known/seald-trust.json
// over HTTPS, or `seald trust export` handed over), and checks every bundle against it instead of against
// what the bundle says of itself: anyone can deploy a SealRegistry and sign a bundle with a key of their own.
type TrustRoot struct {
	Version  int            `json:"version"`
	Issuer   string         `json:"issuer"` // the service's public URL
	Networks []TrustNetwork `json:"networks"`
	Keys     []TrustKey     `json:"keys"`
}

// TrustNetwork is where an issuer anchors on one network.
type TrustNetwork struct {
	Network     string `json:"network"`     // POLYGON or EOS
	ChainID     string `json:"chain_id"`    // decimal EIP-155 chain id
	ChainName   string `json:"chain_name"`  // Chain.Name
	Contract    string `json:"contract"`    // SealRegistry address
	Anchorer    string `json:"anchorer"`    // the address that sends the anchoring transactions
	Development bool   `json:"development"` // seald's embedded development chain: proves nothing beyond the machine
}

// TrustKey is one signing key of an issuer.
type TrustKey struct {
	KeyID     string `json:"key_id"`     // KeyID of the public key
	Algorithm string `json:"algorithm"`  // Ed25519
	PublicKey string `json:"public_key"` // base64 (std) raw public key
	// Status is "current" for the key that signs now, "retired" for one that signed before: bundles it
	// signed stay valid.
	Status string `json:"status"`
}

// TrustRoot returns the service's trust root document.
func (s *Service) TrustRoot() *TrustRoot {
	t := &TrustRoot{Version: TrustRootVersion, Issuer: strings.TrimRight(s.PublicURL, "/"), Networks: []TrustNetwork{}}
	for _, ch := range s.Chains {
		t.Networks = append(t.Networks, TrustNetwork{Network: ch.Network, ChainID: ch.ChainID, ChainName: ch.Name(),
			Contract: ch.Contract, Anchorer: ch.Anchorer, Development: ch.Development})
	}
	sort.Slice(t.Networks, func(i, j int) bool { return t.Networks[i].Network < t.Networks[j].Network })
	for _, k := range s.Secrets.SigningKeys() {
		status := "retired"
		if k.Current {
			status = "current"
		}
		t.Keys = append(t.Keys, TrustKey{KeyID: k.ID, Algorithm: "Ed25519", PublicKey: base64.StdEncoding.EncodeToString(k.Public), Status: status})
	}
	return t
}

// ParseTrustRoot decodes a trust root document and checks its shape: a listed key whose id does not name its
// public key, or a network without its chain id, contract or anchoring address, is EINVALID.
func ParseTrustRoot(b []byte) (*TrustRoot, error) {
	var t TrustRoot
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, Errorf(EINVALID, "not a trust root document: %v", err)
	}
	if t.Version != TrustRootVersion {
		return nil, Errorf(EINVALID, "trust root version %d is not supported (want %d)", t.Version, TrustRootVersion)
	}
	if len(t.Keys) == 0 || len(t.Networks) == 0 {
		return nil, Errorf(EINVALID, "the trust root lists no keys or no networks")
	}
	for _, k := range t.Keys {
		pub, err := base64.StdEncoding.DecodeString(k.PublicKey)
		if err != nil || len(pub) != ed25519.PublicKeySize || k.Algorithm != "Ed25519" {
			return nil, Errorf(EINVALID, "trust root: key %q is not a base64 Ed25519 public key", k.KeyID)
		}
		if KeyID(pub) != k.KeyID {
			return nil, Errorf(EINVALID, "trust root: key_id %q does not name its public key", k.KeyID)
		}
	}
	for _, n := range t.Networks {
		if n.ChainID == "" || n.Contract == "" || n.Anchorer == "" {
			return nil, Errorf(EINVALID, "trust root: network %s lacks its chain_id, contract or anchorer", n.Network)
		}
	}
	return &t, nil
}

// Check checks a bundle's issuer against the trust root: its chain id and contract are those of a listed
// network, and its key is a listed one (a version 1 bundle, which has no key id, by its public key). It
// returns the network, whose anchoring address the caller compares with the anchoring transaction's sender
// on chain. The bundle's own signature is checked by Proof.VerifySignature.
func (t *TrustRoot) Check(p *Proof) (*TrustNetwork, error) {
	var net *TrustNetwork
	for i, n := range t.Networks {
		if n.ChainID == p.ChainID && strings.EqualFold(n.Contract, p.Contract) {
			net = &t.Networks[i]
		}
	}
	if net == nil {
		return nil, fmt.Errorf("chain %s and contract %s are not the issuer's (%s)", p.ChainID, p.Contract, t.describeNetworks())
	}
	for _, k := range t.Keys {
		if k.PublicKey == p.PublicKey && (p.Version < 2 || k.KeyID == p.KeyID) {
			return net, nil
		}
	}
	return nil, fmt.Errorf("signing key %s is not one the issuer lists", cmp.Or(p.KeyID, p.PublicKey))
}

func (t *TrustRoot) describeNetworks() string {
	var out []string
	for _, n := range t.Networks {
		out = append(out, fmt.Sprintf("%s: chain %s, contract %s", n.Network, n.ChainID, n.Contract))
	}
	return strings.Join(out, "; ")
}
