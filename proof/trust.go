package proof

import (
	"cmp"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"seald.dev/seald/jcs"
)

// TrustRootVersion is the format version of trust root documents. Version 1 (no key dates, one contract per
// network, unsigned) is refused: it trusted a retired key for ever and a moved contract not at all.
const TrustRootVersion = 2

// TrustRoot is an issuer's published identity: for each network the chain and every contract it anchored
// on, with the anchoring address and the blocks in which it did, and every key it signs proof bundles with,
// with when each became current, was retired or was marked compromised. A verifier gets it from the issuer
// by a channel it trusts (/.well-known/seald-trust.json over HTTPS, pinned at the first fetch, or `seald
// trust export` handed over), and checks every bundle against it instead of against what the bundle says of
// itself: anyone can deploy a SealRegistry and sign a bundle with a key of their own. The document is signed
// by every key of the issuer not marked compromised, so that a verifier who pinned an earlier root can tell
// that a changed one comes from the same issuer (TrustRoot.Continues).
type TrustRoot struct {
	Version    int              `json:"version"`
	Issuer     string           `json:"issuer"` // the service's public URL
	Networks   []TrustNetwork   `json:"networks"`
	Keys       []TrustKey       `json:"keys"`
	Signatures []TrustSignature `json:"signatures,omitempty"`

	digest [32]byte // TrustRootDigest of the document as read or made
}

// TrustNetwork is where an issuer anchors, or anchored, on one chain of a network.
type TrustNetwork struct {
	Network   string `json:"network"`    // POLYGON or EOS
	ChainID   string `json:"chain_id"`   // decimal EIP-155 chain id
	ChainName string `json:"chain_name"` // the chain in words (seald.Chain.Name)
	// Contract and Anchorer are the ones the issuer anchors with now, for people; empty when it no longer
	// anchors on this chain. Verifiers use Contracts.
	Contract    string          `json:"contract,omitempty"`
	Anchorer    string          `json:"anchorer,omitempty"`
	Development bool            `json:"development"` // seald's embedded development chain: proves nothing beyond the machine
	Contracts   []TrustContract `json:"contracts"`
}

// TrustContract is one contract an issuer anchored on, the address that sent its anchoring transactions, and
// the blocks in which it did: an anchor on it outside [FromBlock, ToBlock] is not the issuer's.
type TrustContract struct {
	Contract  string  `json:"contract"`
	Anchorer  string  `json:"anchorer"`
	FromBlock uint64  `json:"from_block"`
	ToBlock   *uint64 `json:"to_block"` // null: the issuer still anchors on it
}

// TrustKey is one signing key of an issuer.
type TrustKey struct {
	KeyID     string `json:"key_id"`     // KeyID of the public key
	Algorithm string `json:"algorithm"`  // Ed25519
	PublicKey string `json:"public_key"` // base64 (std) raw public key
	// Status is "current" for the key that signs now; "retired" for one that signed before, trusted only for
	// anchors made before RetiredAt; "compromised" for one trusted for nothing.
	Status        string     `json:"status"`
	CurrentFrom   *time.Time `json:"current_from,omitempty"` // when it became current; absent for a key from before rotation
	RetiredAt     *time.Time `json:"retired_at,omitempty"`
	CompromisedAt *time.Time `json:"compromised_at,omitempty"`
	// RetiredBlocks, per chain, is the head of the chain read when the key was retired: every anchor made
	// before the retirement is in a block up to it. A verifier compares an anchor's block with it on a chain
	// it lists, and the block's time with RetiredAt only on another (or in a root from before it): block
	// times are whole seconds, and an anchor made the second of the retirement could not be told from one
	// made after it.
	RetiredBlocks []TrustKeyBlock `json:"retired_blocks,omitempty"`
}

// TrustKeyBlock is the last block of a chain that a retired key covers.
type TrustKeyBlock struct {
	ChainID string `json:"chain_id"`
	Block   uint64 `json:"block"`
}

// RetiredFor reports whether a retired key no longer covers an anchor in block of chainID made at anchored
// (the block's time), and why: the block against the key's RetiredBlocks for that chain when it lists one,
// else the time against RetiredAt, to the second (a block made the second of the retirement is after it).
// A key that is not retired covers every anchor; a compromised one is refused before this is asked.
func (k TrustKey) RetiredFor(chainID string, block uint64, anchored time.Time) (bool, string) {
	if k.Status != "retired" {
		return false, ""
	}
	for _, b := range k.RetiredBlocks {
		if b.ChainID == chainID {
			if block <= b.Block {
				return false, ""
			}
			return true, fmt.Sprintf("was retired at block %d of chain %s, and this anchor is in block %d, after it", b.Block, chainID, block)
		}
	}
	if k.RetiredAt != nil && !anchored.Before(*k.RetiredAt) {
		return true, fmt.Sprintf("was retired at %s, and this anchor (block %d) was made at %s, after it",
			k.RetiredAt.Format(time.RFC3339), block, anchored.UTC().Format(time.RFC3339))
	}
	return false, ""
}

// TrustSignature is one key's Ed25519 signature over TrustRootDigest, base64 (std).
type TrustSignature struct {
	KeyID     string `json:"key_id"`
	Signature string `json:"signature"`
}

// TrustRootDigest is what the issuer's keys sign: SHA-256 of "seald trust root v2\n" followed by the RFC
// 8785 canonical JSON of the document without its signatures member. It is computed from the document as
// received, so members a verifier does not know are covered too.
func TrustRootDigest(doc []byte) ([32]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil {
		return [32]byte{}, refuse("%v", err)
	}
	delete(m, "signatures")
	b, _ := json.Marshal(m) // raw members just decoded always encode again
	c, err := jcs.Canonicalize(b)
	if err != nil {
		return [32]byte{}, refuse("%v", err)
	}
	return sha256.Sum256(append([]byte("seald trust root v2\n"), c...)), nil
}

// ParseTrustRoot decodes a trust root document and checks its shape: a listed key whose id does not name its
// public key, a retired key without its retirement time, or a network without its chain id or contracts, is
// refused. Its signatures are checked by SignedBy and Continues, not here: a file a verifier edited by hand
// is theirs to trust.
func ParseTrustRoot(b []byte) (*TrustRoot, error) {
	var t TrustRoot
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, refuse("not a trust root document: %v", err)
	}
	if t.Version != TrustRootVersion {
		return nil, refuse("trust root version %d is not supported (want %d): fetch the issuer's current one", t.Version, TrustRootVersion)
	}
	if len(t.Keys) == 0 || len(t.Networks) == 0 {
		return nil, refuse("the trust root lists no keys or no networks")
	}
	for _, k := range t.Keys {
		pub, err := base64.StdEncoding.DecodeString(k.PublicKey)
		if err != nil || len(pub) != ed25519.PublicKeySize || k.Algorithm != "Ed25519" {
			return nil, refuse("trust root: key %q is not a base64 Ed25519 public key", k.KeyID)
		}
		if KeyID(pub) != k.KeyID {
			return nil, refuse("trust root: key_id %q does not name its public key", k.KeyID)
		}
		switch {
		case k.Status == "retired" && k.RetiredAt == nil:
			return nil, refuse("trust root: retired key %s has no retired_at", k.KeyID)
		case k.Status != "current" && k.Status != "retired" && k.Status != "compromised":
			return nil, refuse("trust root: key %s has status %q (current, retired or compromised)", k.KeyID, k.Status)
		}
	}
	for _, n := range t.Networks {
		if n.ChainID == "" || len(n.Contracts) == 0 {
			return nil, refuse("trust root: network %s lacks its chain_id or contracts", n.Network)
		}
		for _, c := range n.Contracts {
			if c.Contract == "" || c.Anchorer == "" || c.ToBlock != nil && *c.ToBlock < c.FromBlock {
				return nil, refuse("trust root: a contract of network %s lacks its address or anchorer, or has an empty block range", n.Network)
			}
		}
	}
	var err error
	if t.digest, err = TrustRootDigest(b); err != nil {
		return nil, refuse("trust root: %v", err)
	}
	return &t, nil
}

// Digest is the root's TrustRootDigest: two roots with the same digest are the same document.
func (t *TrustRoot) Digest() [32]byte { return t.digest }

// DigestForSigning computes the root's TrustRootDigest from its members as they are now, keeps it (Digest)
// and returns it: what the issuer's keys sign before their signatures are appended.
func (t *TrustRoot) DigestForSigning() [32]byte {
	b, _ := json.Marshal(t)
	t.digest, _ = TrustRootDigest(b) // t's own JSON always has a canonical form
	return t.digest
}

// CurrentKey is the key the root lists as current.
func (t *TrustRoot) CurrentKey() (TrustKey, bool) {
	for _, k := range t.Keys {
		if k.Status == "current" {
			return k, true
		}
	}
	return TrustKey{}, false
}

// SignedBy reports whether the root carries a valid signature by key k (which may be listed by another root).
func (t *TrustRoot) SignedBy(k TrustKey) bool {
	pub, err := base64.StdEncoding.DecodeString(k.PublicKey)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return false
	}
	for _, s := range t.Signatures {
		sig, err := base64.StdEncoding.DecodeString(s.Signature)
		if err == nil && s.KeyID == k.KeyID && ed25519.Verify(pub, t.digest[:], sig) {
			return true
		}
	}
	return false
}

// CheckSigned checks that the root is signed by the key it lists as current, as every root seald serves is.
func (t *TrustRoot) CheckSigned() error {
	k, ok := t.CurrentKey()
	if !ok {
		return refuse("the trust root lists no current key")
	}
	if !t.SignedBy(k) {
		return refuse("the trust root is not signed by its current key %s", k.KeyID)
	}
	return nil
}

// Continues reports whether t may replace pinned: it is signed by the key pinned lists as current. After a
// rotation the issuer signs its new root with the retired key too, so a pin survives any number of rotations
// as long as the key it trusted was not marked compromised.
func (t *TrustRoot) Continues(pinned *TrustRoot) error {
	k, ok := pinned.CurrentKey()
	if !ok {
		return refuse("the pinned trust root lists no current key")
	}
	if !t.SignedBy(k) {
		return refuse("it is not signed by key %s, the current key of the pinned trust root", k.KeyID)
	}
	return nil
}

// TrustMatch is what a bundle matched in a trust root: the network, the contract range and the key. What
// only the chain can tell (who sent the anchor, and when) is checked by CheckChain.
type TrustMatch struct {
	Network  *TrustNetwork
	Contract TrustContract
	Key      TrustKey
}

// Check checks a bundle's issuer against the trust root: its chain id and contract are those of a listed
// network, its anchor's block is within the contract's range, and its key is a listed one not marked
// compromised (a version 1 bundle, which has no key id, by its public key). The bundle's block number is
// its claim until the chain confirms it (evm.CheckProof); then CheckChain does the rest. The bundle's own
// signature is checked by Bundle.VerifySignature.
func (t *TrustRoot) Check(p *Bundle) (*TrustMatch, error) {
	mp, err := t.CheckAnchor(p.ChainID, p.Contract, p.BlockNumber)
	if err != nil {
		return nil, err
	}
	m := *mp
	for _, k := range t.Keys {
		if k.PublicKey != p.PublicKey || p.Version >= 2 && k.KeyID != p.KeyID {
			continue
		}
		if k.Status == "compromised" {
			since := ""
			if k.CompromisedAt != nil {
				since = " since " + k.CompromisedAt.Format(time.RFC3339)
			}
			return nil, refuse("signing key %s is marked compromised by the issuer%s: no bundle it signed is trusted; "+
				"fetch a fresh bundle from the issuer", k.KeyID, since)
		}
		m.Key = k
		return &m, nil
	}
	return nil, t.unlisted(cmp.Or(p.KeyID, p.PublicKey))
}

// unlisted explains a bundle key the trust root does not list. The usual cause is not a forgery but a trust
// root saved before the issuer rotated its signing key (`seald keys rotate`): it is older than the bundle's
// key, so the message says that first, and how to get the issuer's current one.
func (t *TrustRoot) unlisted(key string) error {
	current := ""
	if k, ok := t.CurrentKey(); ok {
		current = " (its current key is " + k.KeyID
		if k.CurrentFrom != nil {
			current += ", current since " + k.CurrentFrom.UTC().Format(time.RFC3339)
		}
		current += ")"
	}
	return refuse("signing key %s is not one the issuer lists in this trust root%s. If the issuer rotated its signing key after "+
		"this trust root was saved, the trust root is older than the bundle's key: refresh it with "+
		"'seald trust export --out trust.json' against the issuer's serve, or pass --trust %s%s, which fetches "+
		"the current one, and check again. Otherwise the bundle was not signed by this issuer",
		key, current, strings.TrimRight(t.Issuer, "/"), "/.well-known/seald-trust.json")
}

// CheckAnchor checks that the issuer anchored on the chain and contract in that block, for an anchor that
// carries no signature of the issuer (a selective-disclosure presentation); CheckChain then checks its
// sender. Check does this and also checks a bundle's signing key.
func (t *TrustRoot) CheckAnchor(chainID, contract string, block uint64) (*TrustMatch, error) {
	var m TrustMatch
	var ranges []string
	for i, n := range t.Networks {
		if n.ChainID != chainID {
			continue
		}
		for _, c := range n.Contracts {
			if !strings.EqualFold(c.Contract, contract) {
				continue
			}
			if block >= c.FromBlock && (c.ToBlock == nil || block <= *c.ToBlock) {
				m.Network, m.Contract = &t.Networks[i], c
			}
			ranges = append(ranges, c.blocks())
		}
	}
	if m.Network == nil && ranges == nil {
		return nil, refuse("chain %s and contract %s are not the issuer's (%s)", chainID, contract, t.describeNetworks())
	}
	if m.Network == nil {
		return nil, refuse("contract %s anchored for the issuer only in %s, and this anchor is in block %d: "+
			"an anchor outside that range is not the issuer's", contract, strings.Join(ranges, " and "), block)
	}
	return &m, nil
}

// CheckChain checks what only the chain can tell, once it has confirmed the bundle's transaction and block:
// the anchoring transaction was sent by the contract's anchoring address, and a retired key signed the bundle
// of an anchor made before the key's retirement (TrustKey.RetiredFor: the anchor's block against the key's
// retired_blocks for its chain, else the block's time against retired_at).
func (m *TrustMatch) CheckChain(p *Bundle, sender string, anchored time.Time) error {
	if !strings.EqualFold(sender, m.Contract.Anchorer) {
		return refuse("its anchoring transaction was sent by %s, not by the issuer's anchoring address %s", sender, m.Contract.Anchorer)
	}
	if after, why := m.Key.RetiredFor(p.ChainID, p.BlockNumber, anchored); after {
		return refuse("signing key %s %s: a retired key is trusted only for anchors made before its retirement; "+
			"fetch a fresh bundle from the issuer", m.Key.KeyID, why)
	}
	return nil
}

func (c TrustContract) blocks() string {
	if c.ToBlock == nil {
		return fmt.Sprintf("blocks from %d", c.FromBlock)
	}
	return fmt.Sprintf("blocks %d to %d", c.FromBlock, *c.ToBlock)
}

func (t *TrustRoot) describeNetworks() string {
	var out []string
	for _, n := range t.Networks {
		var cs []string
		for _, c := range n.Contracts {
			cs = append(cs, c.Contract)
		}
		out = append(out, fmt.Sprintf("%s: chain %s, contract %s", n.Network, n.ChainID, strings.Join(cs, ", ")))
	}
	return strings.Join(out, "; ")
}
