package seald

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"seald.dev/seald/credential"
	"seald.dev/seald/proof"
)

// Records as verifiable credentials (docs/credentials.md): the owner asks for a record's W3C VC 2.0 credential
// (an eddsa-rdfc-2022 Data Integrity proof) or its SD-JWT VC, signed by the issuer's key; verifiers resolve
// the issuer's did:web DID document and read the record's status from status lists the service publishes.

// CredentialStatuses is the store's view of the records' places in the status lists: a record's status index
// is its insertion sequence (from 0), which every record has, those sealed before credentials included.
type CredentialStatuses interface {
	// StatusIndex returns a record's status index; ENOTFOUND for an unknown reference.
	StatusIndex(ctx context.Context, reference string) (int64, error)
	// StatusesBetween returns the records of status index in [from, to) that are not ACTIVE (or whose token
	// was revoked on chain, as REVOKED), by index.
	StatusesBetween(ctx context.Context, from, to int64) (map[int64]Status, error)
}

// Credential formats of GET /verification/api/v1/credential.
const (
	FormatVC       = "vc"
	FormatSDJWTVC  = "sd-jwt-vc"
	MediaTypeVC    = "application/vc"
	MediaTypeSDJWT = "application/dc+sd-jwt"
)

// StatusListMaxAge is how long a verifier may keep a status list (its Cache-Control max-age and ttl): a status
// change shows in the lists served at once, and in a verifier's copy at its next fetch after at most this.
const StatusListMaxAge = 30 * time.Second

// Public paths of the credentials' documents, under the service's public URL.
const (
	DIDDocumentPath     = "/.well-known/did.json" // the paths also written in httpapi/routes.go
	ContextPath         = "/credentials/contexts/v1"
	StatusListPath      = "/credentials/status/" // + {purpose}/{list}
	StatusListTokenPath = "/credentials/status-tokens/"
)

// IssuedCredential is the answer of GET /verification/api/v1/credential.
type IssuedCredential struct {
	Format    string `json:"format"`
	MediaType string `json:"media_type"`
	Issuer    string `json:"issuer"`
	// Credential is the credential: a JSON object (vc) or the SD-JWT VC's compact string (sd-jwt-vc).
	Credential json.RawMessage `json:"credential"`
}

// CredentialIssuer chooses who issues a record's credential and the key that signs it. It is the one place
// where a business whose domain is verified will issue under its own DID (not built yet); ServiceIssuer, the
// default, issues every record under the service's own did:web.
type CredentialIssuer interface {
	IssuerFor(ctx context.Context, r *Record) (did string, key credential.Key, err error)
}

// Credentials issues records as verifiable credentials and publishes what verifiers need of them.
type Credentials struct {
	Service  *Service
	Statuses CredentialStatuses
	// Issuer chooses a record's issuer; nil is ServiceIssuer.
	Issuer CredentialIssuer
}

// ServiceIssuer issues under the service's did:web, with its current signing key.
type ServiceIssuer struct{ Service *Service }

// IssuerFor returns the service's DID and current key, whatever the record.
func (i ServiceIssuer) IssuerFor(context.Context, *Record) (string, credential.Key, error) {
	did, err := i.Service.DID()
	if err != nil {
		return "", credential.Key{}, err
	}
	return did, i.Service.credentialKey(did), nil
}

// DID is the service's own did:web, made from its public URL.
func (s *Service) DID() (string, error) {
	did, _, err := credential.DIDWeb(s.PublicURL)
	if err != nil {
		return "", &Error{Code: EINTERNAL, Op: "DID", Err: err}
	}
	return did, nil
}

func (s *Service) credentialKey(did string) credential.Key {
	return credential.Key{VerificationMethod: did + "#" + proof.KeyID(s.Secrets.PublicKey()), Sign: s.Secrets.Sign}
}

func (cs *Credentials) issuer(ctx context.Context, r *Record) (string, credential.Key, error) {
	if cs.Issuer != nil {
		return cs.Issuer.IssuerFor(ctx, r)
	}
	return ServiceIssuer{cs.Service}.IssuerFor(ctx, r)
}

// DIDDocument is the service's DID document: every signing key not marked compromised, the current one
// first, so that a credential signed by a key since retired keeps verifying.
func (cs *Credentials) DIDDocument() (map[string]any, error) {
	did, err := cs.Service.DID()
	if err != nil {
		return nil, err
	}
	var keys []credential.VerificationKey
	for _, k := range cs.Service.Secrets.SigningKeys() {
		if k.Compromised.IsZero() {
			keys = append(keys, credential.VerificationKey{ID: k.ID, Public: k.Public})
		}
	}
	return credential.DIDDocument(did, keys), nil
}

func (cs *Credentials) publicURL() string { return strings.TrimRight(cs.Service.PublicURL, "/") }

// Credential returns a record's credential in format (FormatVC when empty) to its owner or the operator,
// guarded as the download is: the project must allow downloads and a record's password is needed. An erased
// record is EGONE (credentials issued before keep verifying); one not anchored yet ECONFLICT; data with a
// member that cannot be a claim EINVALID, naming it.
func (cs *Credentials) Credential(ctx context.Context, c *Caller, reference, password, format string) (*IssuedCredential, error) {
	switch format {
	case "", FormatVC, FormatSDJWTVC:
	default:
		return nil, Errorf(EINVALID, "format: %q is not a credential format (vc, sd-jwt-vc)", format)
	}
	s := cs.Service
	r, err := s.owned(ctx, c, reference)
	if err != nil {
		return nil, err
	}
	if r.Erased() {
		return nil, Errorf(EGONE, "record %s was erased on %s: no credential can be issued for it any more; credentials issued before still verify",
			r.Reference, r.ErasedAt.UTC().Format(time.RFC3339))
	}
	if !r.Downloadable {
		return nil, Errorf(EINVALID, "the data of record %s is not downloadable, so no credential is given", reference)
	}
	if err := s.checkPassword(ctx, r, password); err != nil {
		return nil, err
	}
	bundle, err := s.proof(ctx, r)
	if ErrorCode(err) == ENOTFOUND {
		return nil, Errorf(ECONFLICT, "record %s is not anchored yet (state %s): ask again once it is ANCHORED", r.Reference, r.State)
	}
	if err != nil {
		return nil, err
	}
	canon, err := s.recordData(ctx, r)
	if err != nil {
		return nil, err
	}
	index, err := cs.Statuses.StatusIndex(ctx, r.Reference)
	if err != nil {
		return nil, err
	}
	did, key, err := cs.issuer(ctx, r)
	if err != nil {
		return nil, err
	}
	if format == FormatSDJWTVC {
		return cs.sdJWTVC(r, canon, did, key, index)
	}
	var claims map[string]any
	if err := json.Unmarshal(canon, &claims); err != nil || claims == nil {
		return nil, Errorf(EINVALID, "the data of record %s is not a JSON object, so it cannot be a credential's subject", r.Reference)
	}
	list, at := index/credential.ListSize, int(index%credential.ListSize)
	f := credential.Facts{
		ID: "urn:seald:" + r.Reference, Issuer: did, ValidFrom: r.CreatedAt, Claims: claims,
		Anchor: &credential.Anchor{Network: bundle.Network, ChainID: bundle.ChainID, Contract: bundle.Contract, TokenID: bundle.TokenID,
			Transaction: bundle.TxHash, BlockNumber: bundle.BlockNumber, ContentHash: r.Hash, Leaf: bundle.Leaf,
			MerkleRoot: bundle.Root, MerklePath: bundle.MerklePath},
		Status: []credential.StatusEntry{
			{Purpose: credential.PurposeRevocation, ListURL: cs.statusListURL(credential.PurposeRevocation, list), Index: at},
			{Purpose: credential.PurposeSuspension, ListURL: cs.statusListURL(credential.PurposeSuspension, list), Index: at},
		},
	}
	vc, err := credential.Issue(f, key, s.now())
	var ce *credential.ClaimError
	if errors.As(err, &ce) {
		return nil, Errorf(EINVALID, "record %s cannot be a credential as sealed: %s", r.Reference, ce.Error())
	}
	if err != nil {
		return nil, &Error{Code: EINTERNAL, Op: "Credential", Err: err}
	}
	b, err := json.Marshal(vc)
	if err != nil {
		return nil, err
	}
	return &IssuedCredential{Format: FormatVC, MediaType: MediaTypeVC, Issuer: did, Credential: b}, nil
}

func (cs *Credentials) sdJWTVC(r *Record, canon []byte, did string, key credential.Key, index int64) (*IssuedCredential, error) {
	if r.DataKey == "" {
		return nil, Errorf(EINVALID, "record %s was sealed before selective disclosure: it has no disclosures, so no SD-JWT VC; ask for format=vc", r.Reference)
	}
	secret, err := cs.Service.Secrets.DisclosureSecret(r.Reference, r.DataKey)
	if err != nil {
		return nil, err
	}
	sd, err := proof.BuildSD(canon, secret)
	if err != nil {
		return nil, Errorf(EINVALID, "record %s cannot be an SD-JWT VC: %v", r.Reference, err)
	}
	all := make([]string, len(sd.Disclosures))
	for i, d := range sd.Disclosures {
		all[i] = d.Disclosure
	}
	list := index / credential.ListSize
	s, err := credential.IssueSDJWTVC(credential.SDJWTFacts{Issuer: did, Payload: sd.Payload, Disclosures: all,
		IssuedAt: r.CreatedAt, StatusURI: cs.statusTokenURL(list), StatusIndex: int(index % credential.ListSize)}, key)
	if err != nil {
		return nil, &Error{Code: EINTERNAL, Op: "Credential", Err: err}
	}
	b, _ := json.Marshal(s)
	return &IssuedCredential{Format: FormatSDJWTVC, MediaType: MediaTypeSDJWT, Issuer: did, Credential: b}, nil
}

func (cs *Credentials) statusListURL(purpose string, list int64) string {
	return cs.publicURL() + StatusListPath + purpose + "/" + strconv.FormatInt(list, 10)
}

func (cs *Credentials) statusTokenURL(list int64) string {
	return cs.publicURL() + StatusListTokenPath + strconv.FormatInt(list, 10)
}

// MaxStatusList bounds the list numbers served (2^20 lists of ListSize records each).
const MaxStatusList = 1 << 20

// ParseStatusList reads a status list number of a public path; ENOTFOUND for anything else, since the path
// names no list.
func ParseStatusList(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n >= MaxStatusList || strconv.FormatInt(n, 10) != s {
		return 0, Errorf(ENOTFOUND, "no status list %q", s)
	}
	return n, nil
}

// StatusListCredential is the signed BitstringStatusListCredential of a purpose (revocation, suspension) for
// the records of list: each record's bit set while its status is REVOKED (revocation) or SUSPENDED
// (suspension), read from the store now.
func (cs *Credentials) StatusListCredential(ctx context.Context, purpose string, list int64) ([]byte, error) {
	if purpose != credential.PurposeRevocation && purpose != credential.PurposeSuspension {
		return nil, Errorf(ENOTFOUND, "no status list of purpose %q (revocation, suspension)", purpose)
	}
	statuses, err := cs.Statuses.StatusesBetween(ctx, list*credential.ListSize, (list+1)*credential.ListSize)
	if err != nil {
		return nil, err
	}
	bits := credential.NewBitstring(credential.ListSize)
	want := map[string]Status{credential.PurposeRevocation: StatusRevoked, credential.PurposeSuspension: StatusSuspended}[purpose]
	for i, st := range statuses {
		if st == want {
			bits.Set(int(i - list*credential.ListSize))
		}
	}
	did, err := cs.Service.DID()
	if err != nil {
		return nil, err
	}
	now := cs.Service.now()
	l := credential.StatusList{URL: cs.statusListURL(purpose, list), Issuer: did, Purpose: purpose, Bits: bits,
		ValidFrom: now, TTL: StatusListMaxAge}
	c, err := l.Credential(cs.Service.credentialKey(did))
	if err != nil {
		return nil, &Error{Code: EINTERNAL, Op: "StatusListCredential", Err: err}
	}
	return json.Marshal(c)
}

// StatusListToken is the signed IETF status list token (statuslist+jwt) of list, two bits a record: 0 valid,
// 1 revoked (invalid), 2 suspended.
func (cs *Credentials) StatusListToken(ctx context.Context, list int64) (string, error) {
	statuses, err := cs.Statuses.StatusesBetween(ctx, list*credential.ListSize, (list+1)*credential.ListSize)
	if err != nil {
		return "", err
	}
	t := credential.NewTokenStatuses(credential.ListSize)
	for i, st := range statuses {
		switch st {
		case StatusRevoked:
			t.Set(int(i-list*credential.ListSize), credential.TokenInvalid)
		case StatusSuspended:
			t.Set(int(i-list*credential.ListSize), credential.TokenSuspended)
		}
	}
	did, err := cs.Service.DID()
	if err != nil {
		return "", err
	}
	k := cs.Service.credentialKey(did)
	jwt, err := credential.StatusListToken(cs.statusTokenURL(list), t, cs.Service.now(), StatusListMaxAge, k.VerificationMethod, k.Sign)
	if err != nil {
		return "", fmt.Errorf("status list token: %w", err)
	}
	return jwt, nil
}

// CredentialContext is seald's JSON-LD context (served at ContextPath) as embedded in the binary.
func CredentialContext() ([]byte, bool) { return credential.Context(credential.ContextSeald) }
