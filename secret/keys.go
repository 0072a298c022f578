// Package secret is seald's cryptography behind the domain's small interfaces (seald.Signer,
// seald.KeyWrapper, seald.EnvelopeSealer, seald.OVICodec, seald.PasswordHasher): Keys holds the service's own
// keys and is the one implementation of all of them. Callers hold the interfaces, never raw key bytes, so that
// key ids, rotation or another key source change this package only.
//
// It uses the standard library's AES-GCM and Ed25519 and x/crypto's Argon2id; nothing here is a new primitive.
package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/chacha20poly1305"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// Keys are the service's own keys. They are generated at first start into the data dir; the domain only uses
// them through its interfaces. Master and signing keys rotate (Rotate): the first of each list is current and
// seals or signs everything new; the others stay to open and verify what they sealed or signed before.
type Keys struct {
	// masters wrap the per-record data keys of stored envelopes and seal subscription secrets.
	masters []masterKey
	// ovi encrypts the references embedded in documents (encrypted_ovi).
	ovi [32]byte
	// signers sign record digests (is_signed); their public halves are published in the trust root.
	signers []signingKey
	// contracts are the contracts the issuer anchored on before its current ones, with the blocks in which
	// it did (RetireContract): the trust root lists them so that their bundles keep verifying, within the
	// range only. They live here, beside the signing keys, because together they are the issuer's identity
	// and the file is already the one every instance shares.
	contracts []seald.ContractRange

	once    sync.Once
	hashing chan struct{} // a slot per password hash the memory budget allows (password.go)
	cost    *PasswordCost // nil: the full cost (defaultPasswordCost)
}

type masterKey struct {
	id      string // MasterKeyID
	key     [32]byte
	created time.Time
}

type signingKey struct {
	priv        ed25519.PrivateKey
	created     time.Time
	retired     time.Time // zero while current
	compromised time.Time // zero unless marked compromised (Compromise)
	// retiredBlocks: chain id to the chain's head when the key was retired (SetRetiredBlock)
	retiredBlocks map[string]uint64
}

// masterKeyID names a master key without revealing it: 16 hex digits of a domain-separated SHA-256.
func masterKeyID(key [32]byte) string {
	sum := sha256.Sum256(append([]byte("seald master key id\n"), key[:]...))
	return hex.EncodeToString(sum[:8])
}

func newMaster(now time.Time) (masterKey, error) {
	m := masterKey{created: now.UTC()}
	if _, err := rand.Read(m.key[:]); err != nil {
		return m, err
	}
	m.id = masterKeyID(m.key)
	return m, nil
}

func newSigner(now time.Time) (signingKey, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	return signingKey{priv: priv, created: now.UTC()}, err
}

// Generate makes a fresh set of keys.
func Generate() (*Keys, error) {
	now := time.Now()
	k := &Keys{}
	m, err := newMaster(now)
	if err != nil {
		return nil, err
	}
	if _, err := rand.Read(k.ovi[:]); err != nil {
		return nil, err
	}
	sg, err := newSigner(now)
	if err != nil {
		return nil, err
	}
	k.masters, k.signers = []masterKey{m}, []signingKey{sg}
	return k, nil
}

// Rotate makes a new master key (master) and/or a new signing key (signing) current. The old ones are kept:
// envelopes and secrets sealed under an old master key still open, and bundles signed by an old signing key
// still verify against the trust root, which lists it as retired.
func (k *Keys) Rotate(master, signing bool) error {
	now := time.Now()
	if master {
		m, err := newMaster(now)
		if err != nil {
			return err
		}
		k.masters = append([]masterKey{m}, k.masters...)
	}
	if signing {
		sg, err := newSigner(now)
		if err != nil {
			return err
		}
		k.signers[0].retired = now.UTC()
		k.signers = append([]signingKey{sg}, k.signers...)
	}
	return nil
}

// fileV1 is the secrets file of seald before key rotation: one master key, the OVI key and one Ed25519
// signing seed, base64 in JSON. It is still read.
type fileV1 struct {
	Master     []byte `json:"master_key"`
	OVI        []byte `json:"ovi_key"`
	SigningKey []byte `json:"signing_seed"`
}

// file is the secrets file's format (mode 0600 in the data dir), version 2: every master and signing key,
// the current one first.
type file struct {
	Version     int           `json:"version"`
	MasterKeys  []fileMaster  `json:"master_keys"`
	OVI         []byte        `json:"ovi_key"`
	SigningKeys []fileSigning `json:"signing_keys"`
	// RetiredContracts was added within version 2: a file without it has none, and an earlier seald
	// ignores it.
	RetiredContracts []seald.ContractRange `json:"retired_contracts,omitempty"`
}

type fileMaster struct {
	ID      string    `json:"id"`
	Key     []byte    `json:"key"`
	Created time.Time `json:"created"`
}

type fileSigning struct {
	ID      string     `json:"id"` // proof.KeyID of its public key
	Seed    []byte     `json:"seed"`
	Created time.Time  `json:"created"`
	Retired *time.Time `json:"retired,omitempty"`
	// Compromised was added within version 2; an earlier seald reads such a key as retired.
	Compromised *time.Time `json:"compromised,omitempty"`
	// RetiredBlocks (chain id to the chain's head at the retirement) was added within version 2; an earlier
	// seald ignores it.
	RetiredBlocks map[string]uint64 `json:"retired_blocks,omitempty"`
}

var errSecretsFile = errors.New("not a valid secrets file")

// Parse reads keys in the secrets file's format, version 2 or the earlier version 1.
func Parse(b []byte) (*Keys, error) {
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, errSecretsFile
	}
	if f.Version == 0 {
		var v1 fileV1
		if err := json.Unmarshal(b, &v1); err != nil || len(v1.Master) != 32 || len(v1.OVI) != 32 || len(v1.SigningKey) != ed25519.SeedSize {
			return nil, errSecretsFile
		}
		k := &Keys{signers: []signingKey{{priv: ed25519.NewKeyFromSeed(v1.SigningKey)}}}
		m := masterKey{}
		copy(m.key[:], v1.Master)
		m.id = masterKeyID(m.key)
		k.masters = []masterKey{m}
		copy(k.ovi[:], v1.OVI)
		return k, nil
	}
	if f.Version != 2 || len(f.MasterKeys) == 0 || len(f.SigningKeys) == 0 || len(f.OVI) != 32 {
		return nil, errSecretsFile
	}
	k := &Keys{}
	copy(k.ovi[:], f.OVI)
	for _, fm := range f.MasterKeys {
		if len(fm.Key) != 32 {
			return nil, errSecretsFile
		}
		m := masterKey{created: fm.Created}
		copy(m.key[:], fm.Key)
		if m.id = masterKeyID(m.key); fm.ID != m.id {
			return nil, errSecretsFile
		}
		k.masters = append(k.masters, m)
	}
	for _, fs := range f.SigningKeys {
		if len(fs.Seed) != ed25519.SeedSize {
			return nil, errSecretsFile
		}
		sg := signingKey{priv: ed25519.NewKeyFromSeed(fs.Seed), created: fs.Created}
		if fs.Retired != nil {
			sg.retired = *fs.Retired
		}
		if fs.Compromised != nil {
			sg.compromised = *fs.Compromised
		}
		sg.retiredBlocks = fs.RetiredBlocks
		k.signers = append(k.signers, sg)
	}
	for _, c := range f.RetiredContracts {
		if err := c.Validate(); err != nil {
			return nil, errSecretsFile
		}
	}
	k.contracts = f.RetiredContracts
	return k, nil
}

// Marshal writes the keys in the secrets file's format, version 2.
func (k *Keys) Marshal() ([]byte, error) {
	f := file{Version: 2, OVI: k.ovi[:]}
	for _, m := range k.masters {
		f.MasterKeys = append(f.MasterKeys, fileMaster{ID: m.id, Key: m.key[:], Created: m.created})
	}
	for _, sg := range k.signers {
		fs := fileSigning{ID: proof.KeyID(sg.public()), Seed: sg.priv.Seed(), Created: sg.created}
		if !sg.retired.IsZero() {
			r := sg.retired
			fs.Retired = &r
		}
		if !sg.compromised.IsZero() {
			c := sg.compromised
			fs.Compromised = &c
		}
		fs.RetiredBlocks = sg.retiredBlocks
		f.SigningKeys = append(f.SigningKeys, fs)
	}
	f.RetiredContracts = k.contracts
	b, err := json.MarshalIndent(f, "", "  ")
	return append(b, '\n'), err
}

func (sg signingKey) public() ed25519.PublicKey { return sg.priv.Public().(ed25519.PublicKey) }

// Sign signs a digest with the service's current Ed25519 key.
func (k *Keys) Sign(digest []byte) []byte { return ed25519.Sign(k.signers[0].priv, digest) }

// PublicKey is the public half of the current signing key, published at /.well-known/seald-key.
func (k *Keys) PublicKey() ed25519.PublicKey { return k.signers[0].public() }

// MasterKeyID is the id of the current master key.
func (k *Keys) MasterKeyID() string { return k.masters[0].id }

// MasterKeys is how many master keys there are, the current one included.
func (k *Keys) MasterKeys() int { return len(k.masters) }

// SigningKeys lists every signing key, the current one first, for the trust root.
func (k *Keys) SigningKeys() []seald.SigningKey {
	out := make([]seald.SigningKey, len(k.signers))
	for i, sg := range k.signers {
		out[i] = seald.SigningKey{ID: proof.KeyID(sg.public()), Public: sg.public(), Current: i == 0,
			Created: sg.created, Retired: sg.retired, Compromised: sg.compromised, RetiredBlocks: sg.retiredBlocks}
	}
	return out
}

// SignAll signs a digest with every signing key not marked compromised, the current one first: the trust
// root carries these signatures so that a verifier who pinned an earlier root, whose current key is now
// retired, can tell the new root comes from the same issuer.
func (k *Keys) SignAll(digest []byte) []seald.KeySignature {
	var out []seald.KeySignature
	for _, sg := range k.signers {
		if sg.compromised.IsZero() {
			out = append(out, seald.KeySignature{KeyID: proof.KeyID(sg.public()), Signature: ed25519.Sign(sg.priv, digest)})
		}
	}
	return out
}

// SetRetiredBlock records, for the retired signing key with this id, the head of a chain read when it was
// retired: the trust root then lists it, and verifiers compare an anchor's block on that chain with it
// rather than the block's time with the retirement's, which whole seconds cannot order.
func (k *Keys) SetRetiredBlock(id, chainID string, block uint64) error {
	for i, sg := range k.signers {
		if proof.KeyID(sg.public()) != id {
			continue
		}
		if sg.retired.IsZero() {
			return fmt.Errorf("signing key %s is not retired", id)
		}
		if sg.retiredBlocks == nil {
			k.signers[i].retiredBlocks = map[string]uint64{}
		}
		k.signers[i].retiredBlocks[chainID] = block
		return nil
	}
	return fmt.Errorf("no signing key %q in the secrets file", id)
}

// Compromise marks the signing key with this id compromised: the trust root then says so and verifiers
// refuse every bundle it signed, and it signs nothing more (not even the trust root). When it is the current
// key, a new one is made current first (rotated reports so). Marking a key twice keeps the first time.
func (k *Keys) Compromise(id string) (rotated bool, err error) {
	i := -1
	for j, sg := range k.signers {
		if proof.KeyID(sg.public()) == id {
			i = j
		}
	}
	if i < 0 {
		return false, fmt.Errorf("no signing key %q in the secrets file", id)
	}
	if !k.signers[i].compromised.IsZero() {
		return false, nil
	}
	if i == 0 {
		if err := k.Rotate(false, true); err != nil {
			return false, err
		}
		i, rotated = 1, true
	}
	k.signers[i].compromised = time.Now().UTC()
	return rotated, nil
}

// RetiredContracts lists the contracts the issuer anchored on before (RetireContract), in the order they
// were retired.
func (k *Keys) RetiredContracts() []seald.ContractRange {
	return append([]seald.ContractRange(nil), k.contracts...)
}

// RetireContract records that the issuer anchored on a contract only within a block range and no longer
// does: the trust root lists it so that bundles of that range keep verifying and any anchor outside it is
// refused. Recording the same contract of the same chain again replaces its range.
func (k *Keys) RetireContract(c seald.ContractRange) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if c.ToBlock == nil {
		return errors.New("a retired contract needs the last block it anchored in")
	}
	for i, old := range k.contracts {
		if old.Network == c.Network && old.ChainID == c.ChainID && strings.EqualFold(old.Contract, c.Contract) {
			k.contracts[i] = c
			return nil
		}
	}
	k.contracts = append(k.contracts, c)
	return nil
}

// master returns the master key with this id.
func (k *Keys) master(id string) (*masterKey, bool) {
	for i := range k.masters {
		if k.masters[i].id == id {
			return &k.masters[i], true
		}
	}
	return nil, false
}

// sealX encrypts with XChaCha20-Poly1305 under key, binding aad: nonce(24)||ciphertext||tag. Its 192-bit
// random nonces make collisions negligible however many values one master key seals, which AES-GCM's 96-bit
// random nonces do not past about 2^32.
func sealX(key []byte, plaintext, aad []byte) ([]byte, error) {
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return nil, err
	}
	out := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plaintext)+aead.Overhead())
	if _, err := rand.Read(out); err != nil {
		return nil, err
	}
	return aead.Seal(out, out, plaintext, aad), nil
}

func openX(key []byte, sealed, aad []byte) ([]byte, error) {
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return nil, err
	}
	if len(sealed) < aead.NonceSize()+aead.Overhead() {
		return nil, errors.New("sealed value too short")
	}
	return aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], aad)
}

// seal encrypts plaintext with AES-256-GCM under key, binding aad, and returns nonce||ciphertext.
func seal(key []byte, plaintext, aad []byte) ([]byte, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	out := make([]byte, gcm.NonceSize(), gcm.NonceSize()+len(plaintext)+gcm.Overhead())
	if _, err := rand.Read(out); err != nil {
		return nil, err
	}
	return gcm.Seal(out, out, plaintext, aad), nil
}

// open reverses seal.
func open(key []byte, sealed, aad []byte) ([]byte, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	if len(sealed) < gcm.NonceSize()+gcm.Overhead() {
		return nil, errors.New("sealed value too short")
	}
	return gcm.Open(nil, sealed[:gcm.NonceSize()], sealed[gcm.NonceSize():], aad)
}

// SealString seals a short secret (a subscription key) under the current master key, for storage:
// "2.<master key id>.<XChaCha20-Poly1305 sealed value>".
func (k *Keys) SealString(v, purpose string) (string, error) {
	m := k.masters[0]
	b, err := sealX(m.key[:], []byte(v), []byte("seald/"+purpose))
	if err != nil {
		return "", err
	}
	return "2." + m.id + "." + base64.RawURLEncoding.EncodeToString(b), nil
}

// OpenString reverses SealString, under whichever master key sealed the value; a value sealed before key
// rotation (AES-GCM, no key id) is opened with the master keys in turn.
func (k *Keys) OpenString(v, purpose string) (string, error) {
	if rest, ok := strings.CutPrefix(v, "2."); ok {
		id, enc, ok := strings.Cut(rest, ".")
		m, found := k.master(id)
		if !ok || !found {
			return "", errors.New("sealed value: unknown master key")
		}
		b, err := base64.RawURLEncoding.DecodeString(enc)
		if err != nil {
			return "", err
		}
		p, err := openX(m.key[:], b, []byte("seald/"+purpose))
		return string(p), err
	}
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return "", err
	}
	for _, m := range k.masters {
		if p, err := open(m.key[:], b, []byte("seald/"+purpose)); err == nil {
			return string(p), nil
		}
	}
	return "", errors.New("sealed value: no master key opens it")
}
