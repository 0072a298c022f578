package credential

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/multiformats/go-multibase"
)

// Names of the Data Integrity proof seald makes.
const (
	ProofType   = "DataIntegrityProof"
	Cryptosuite = "eddsa-rdfc-2022"
	// CredentialType is the type seald's record credentials carry beside VerifiableCredential.
	CredentialType = "SealedRecordCredential"
)

// Anchor is where a record's content hash is anchored: the evidence of the credential. A verifier
// recomputes the leaf from the token id and the hash, folds the Merkle path into the root, and reads the
// root the contract holds for the token.
type Anchor struct {
	Network     string
	ChainID     string
	Contract    string
	TokenID     string
	Transaction string
	BlockNumber uint64
	ContentHash string // lowercase hex SHA-256 of the record's canonical data
	Leaf        string
	MerkleRoot  string
	MerklePath  []string
}

// StatusEntry is one Bitstring Status List entry of a credential: the bit at Index of the list of Purpose
// published at ListURL.
type StatusEntry struct {
	Purpose string // PurposeRevocation or PurposeSuspension
	ListURL string
	Index   int
}

// Facts are what a record's credential states, taken from the record by the service.
type Facts struct {
	ID        string // the credential's id (a URI)
	Issuer    string // the issuer's DID
	ValidFrom time.Time
	// Claims are the sealed data, each member a claim of credentialSubject; see CheckClaims.
	Claims map[string]any
	Anchor *Anchor // nil when the record is not anchored yet
	Status []StatusEntry
}

// Key is a signing key as the credential names it: the DID URL of its verification method and a function
// that signs with it (Ed25519), so that the private half stays with whoever holds it.
type Key struct {
	VerificationMethod string
	Sign               func(msg []byte) []byte
}

// Issue makes the signed W3C VC 2.0 credential of f. The claims are checked first (a *ClaimError names a
// member that cannot be a claim); created is the proof's creation time.
func Issue(f Facts, k Key, created time.Time) (map[string]any, error) {
	ctx := []any{ContextV2, ContextSeald}
	literal, err := jsonClaims(f.Claims)
	if err != nil {
		return nil, err
	}
	if len(literal) > 0 {
		ctx = append(ctx, literal)
	}
	doc := map[string]any{
		"@context":          ctx,
		"type":              []any{"VerifiableCredential", CredentialType},
		"issuer":            f.Issuer,
		"validFrom":         xsdTime(f.ValidFrom),
		"credentialSubject": f.Claims,
	}
	if f.ID != "" {
		doc["id"] = f.ID
	}
	if a := f.Anchor; a != nil {
		path := make([]any, len(a.MerklePath))
		for i, p := range a.MerklePath {
			path[i] = p
		}
		doc["evidence"] = []any{map[string]any{
			"type": []any{"SealdAnchor"}, "network": a.Network, "chainId": a.ChainID, "contract": a.Contract,
			"tokenId": a.TokenID, "transaction": a.Transaction, "blockNumber": a.BlockNumber,
			"contentHash": a.ContentHash, "leaf": a.Leaf, "merkleRoot": a.MerkleRoot, "merklePath": path,
		}}
	}
	if len(f.Status) > 0 {
		var st []any
		for _, s := range f.Status {
			st = append(st, statusEntry(s))
		}
		doc["credentialStatus"] = st
	}
	// Round-trip through JSON so that the document holds only encoding/json values (float64 numbers, []any),
	// which is what the canonicalizer reads and what a verifier will read back.
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var plain map[string]any
	if err := json.Unmarshal(b, &plain); err != nil {
		return nil, err
	}
	return Sign(plain, k, created)
}

func statusEntry(s StatusEntry) map[string]any {
	return map[string]any{
		"id": fmt.Sprintf("%s#%d", s.ListURL, s.Index), "type": "BitstringStatusListEntry",
		"statusPurpose": s.Purpose, "statusListIndex": fmt.Sprint(s.Index), "statusListCredential": s.ListURL,
	}
}

func xsdTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// Sign adds an eddsa-rdfc-2022 Data Integrity proof to doc (an unsecured credential of encoding/json
// values): the proof options and the document are canonicalized (RDFC-1.0), each hashed with SHA-256, and
// the two hashes, options first, signed with Ed25519.
func Sign(doc map[string]any, k Key, created time.Time) (map[string]any, error) {
	proof := map[string]any{
		"type": ProofType, "cryptosuite": Cryptosuite, "created": xsdTime(created),
		"verificationMethod": k.VerificationMethod, "proofPurpose": "assertionMethod",
	}
	data, err := hashData(doc, proof)
	if err != nil {
		return nil, err
	}
	value, err := multibase.Encode(multibase.Base58BTC, k.Sign(data))
	if err != nil {
		return nil, err
	}
	proof["proofValue"] = value
	out := make(map[string]any, len(doc)+1)
	for n, v := range doc {
		out[n] = v
	}
	out["proof"] = proof
	return out, nil
}

// hashData is SHA-256(canonical proof configuration) || SHA-256(canonical document), the message that
// eddsa-rdfc-2022 signs; the proof configuration carries the document's @context.
func hashData(doc, proof map[string]any) ([]byte, error) {
	cfg := make(map[string]any, len(proof)+1)
	for n, v := range proof {
		if n != "proofValue" {
			cfg[n] = v
		}
	}
	cfg["@context"] = doc["@context"]
	cp, err := Canonicalize(cfg)
	if err != nil {
		return nil, fmt.Errorf("canonicalizing the proof options: %w", err)
	}
	cd, err := Canonicalize(doc)
	if err != nil {
		return nil, fmt.Errorf("canonicalizing the credential: %w", err)
	}
	hp, hd := sha256.Sum256([]byte(cp)), sha256.Sum256([]byte(cd))
	return append(hp[:], hd[:]...), nil
}

// Resolver finds the public key of a verification method (a DID URL), for Verify.
type Resolver func(verificationMethod string) (ed25519.PublicKey, error)

// Verify checks the eddsa-rdfc-2022 proof of a credential (JSON): one DataIntegrityProof of this
// cryptosuite for assertionMethod, made by a verification method of the credential's issuer that resolve
// knows, over the credential without its proof. It returns the verification method.
func Verify(credential []byte, resolve Resolver) (string, error) {
	var doc map[string]any
	if err := json.Unmarshal(credential, &doc); err != nil {
		return "", fmt.Errorf("the credential is not a JSON object: %w", err)
	}
	proof, ok := doc["proof"].(map[string]any)
	if !ok {
		return "", errors.New("the credential has no single proof object")
	}
	delete(doc, "proof")
	if proof["type"] != ProofType || proof["cryptosuite"] != Cryptosuite {
		return "", fmt.Errorf("the proof is %v/%v, not %s/%s", proof["type"], proof["cryptosuite"], ProofType, Cryptosuite)
	}
	if proof["proofPurpose"] != "assertionMethod" {
		return "", fmt.Errorf("the proof's purpose is %v, not assertionMethod", proof["proofPurpose"])
	}
	vm, _ := proof["verificationMethod"].(string)
	issuer, _ := doc["issuer"].(string)
	if obj, ok := doc["issuer"].(map[string]any); ok {
		issuer, _ = obj["id"].(string)
	}
	if issuer == "" || !strings.HasPrefix(vm, issuer+"#") {
		return "", fmt.Errorf("the proof's verification method %q is not one of the issuer %q", vm, issuer)
	}
	pub, err := resolve(vm)
	if err != nil {
		return "", err
	}
	pv, _ := proof["proofValue"].(string)
	enc, sig, err := multibase.Decode(pv)
	if err != nil || enc != multibase.Base58BTC || len(sig) != ed25519.SignatureSize {
		return "", errors.New("the proofValue is not a base58btc multibase Ed25519 signature")
	}
	data, err := hashData(doc, proof)
	if err != nil {
		return "", err
	}
	if !ed25519.Verify(pub, data, sig) {
		return "", errors.New("the credential's proof does not verify: the credential or its proof was changed")
	}
	return vm, nil
}

// jsonClaims checks the claims, and returns the inline context that makes a top-level member a JSON literal
// (@type @json, canonicalized by RFC 8785) when its value is an object that could not be read as claims
// (a nested "id" or "type", a name beginning with @...): such an object is then signed as one JSON value, not
// as claims of its own. A member whose name itself cannot be a claim, or a top-level value or array at fault,
// is refused with a *ClaimError.
func jsonClaims(claims map[string]any) (map[string]any, error) {
	terms := map[string]any{}
	for _, k := range sortedKeys(claims) {
		err := CheckClaims(map[string]any{k: claims[k]})
		if err == nil {
			continue
		}
		if _, isObject := claims[k].(map[string]any); !isObject || checkName(k) != "" {
			return nil, err
		}
		terms[k] = map[string]any{"@id": claimsVocab + k, "@type": "@json"}
	}
	return terms, nil
}

// claimsVocab is the @vocab of seald's context: the IRI prefix of every claim.
const claimsVocab = "https://seald.dev/ns/claims#"
