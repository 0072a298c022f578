package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/credential"
	"seald.dev/seald/proof"
)

// Credentials issues records as verifiable credentials and publishes what verifiers need of them.
type Credentials struct {
	Service  *Service
	Statuses seald.CredentialStatuses
	// Issuer chooses a record's issuer; nil is ServiceIssuer.
	Issuer seald.CredentialIssuer
}

// ServiceIssuer issues under the service's did:web, with its current signing key.
type ServiceIssuer struct{ Service *Service }

// IssuerFor returns the service's DID and current key, whatever the record.
func (i ServiceIssuer) IssuerFor(context.Context, *seald.Record) (string, credential.Key, error) {
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
		return "", &seald.Error{Code: seald.EINTERNAL, Op: "DID", Err: err}
	}
	return did, nil
}

func (s *Service) credentialKey(did string) credential.Key {
	return credential.Key{VerificationMethod: did + "#" + proof.KeyID(s.Secrets.PublicKey()), Sign: s.Secrets.Sign}
}

func (cs *Credentials) issuer(ctx context.Context, r *seald.Record) (string, credential.Key, error) {
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
func (cs *Credentials) Credential(ctx context.Context, c *seald.Caller, reference, password, format string) (*seald.IssuedCredential, error) {
	switch format {
	case "", seald.FormatVC, seald.FormatSDJWTVC:
	default:
		return nil, seald.Errorf(seald.EINVALID, "format: %q is not a credential format (vc, sd-jwt-vc)", format)
	}
	s := cs.Service
	r, err := s.owned(ctx, c, reference)
	if err != nil {
		return nil, err
	}
	if r.Erased() {
		return nil, seald.Errorf(seald.EGONE, "record %s was erased on %s: no credential can be issued for it any more; credentials issued before still verify",
			r.Reference, r.ErasedAt.UTC().Format(time.RFC3339))
	}
	if !r.Downloadable {
		return nil, seald.Errorf(seald.EINVALID, "the data of record %s is not downloadable, so no credential is given", reference)
	}
	if err := s.checkPassword(ctx, r, password); err != nil {
		return nil, err
	}
	bundle, err := s.proof(ctx, r)
	if seald.ErrorCode(err) == seald.ENOTFOUND {
		return nil, seald.Errorf(seald.ECONFLICT, "record %s is not anchored yet (state %s): ask again once it is ANCHORED", r.Reference, r.State)
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
	if format == seald.FormatSDJWTVC {
		return cs.sdJWTVC(r, canon, did, key, index)
	}
	var claims map[string]any
	if err := json.Unmarshal(canon, &claims); err != nil || claims == nil {
		return nil, seald.Errorf(seald.EINVALID, "the data of record %s is not a JSON object, so it cannot be a credential's subject", r.Reference)
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
		return nil, seald.Errorf(seald.EINVALID, "record %s cannot be a credential as sealed: %s", r.Reference, ce.Error())
	}
	if err != nil {
		return nil, &seald.Error{Code: seald.EINTERNAL, Op: "Credential", Err: err}
	}
	b, err := json.Marshal(vc)
	if err != nil {
		return nil, err
	}
	return &seald.IssuedCredential{Format: seald.FormatVC, MediaType: seald.MediaTypeVC, Issuer: did, Credential: b}, nil
}

func (cs *Credentials) sdJWTVC(r *seald.Record, canon []byte, did string, key credential.Key, index int64) (*seald.IssuedCredential, error) {
	if r.DataKey == "" {
		return nil, seald.Errorf(seald.EINVALID, "record %s was sealed before selective disclosure: it has no disclosures, so no SD-JWT VC; ask for format=vc", r.Reference)
	}
	secret, err := cs.Service.Secrets.DisclosureSecret(r.Reference, r.DataKey)
	if err != nil {
		return nil, err
	}
	sd, err := proof.BuildSD(canon, secret)
	if err != nil {
		return nil, seald.Errorf(seald.EINVALID, "record %s cannot be an SD-JWT VC: %v", r.Reference, err)
	}
	all := make([]string, len(sd.Disclosures))
	for i, d := range sd.Disclosures {
		all[i] = d.Disclosure
	}
	list := index / credential.ListSize
	s, err := credential.IssueSDJWTVC(credential.SDJWTFacts{Issuer: did, Payload: sd.Payload, Disclosures: all,
		IssuedAt: r.CreatedAt, StatusURI: cs.statusTokenURL(list), StatusIndex: int(index % credential.ListSize)}, key)
	if err != nil {
		return nil, &seald.Error{Code: seald.EINTERNAL, Op: "Credential", Err: err}
	}
	b, _ := json.Marshal(s)
	return &seald.IssuedCredential{Format: seald.FormatSDJWTVC, MediaType: seald.MediaTypeSDJWT, Issuer: did, Credential: b}, nil
}

func (cs *Credentials) statusListURL(purpose string, list int64) string {
	return cs.publicURL() + seald.StatusListPath + purpose + "/" + strconv.FormatInt(list, 10)
}

func (cs *Credentials) statusTokenURL(list int64) string {
	return cs.publicURL() + seald.StatusListTokenPath + strconv.FormatInt(list, 10)
}

// StatusListCredential is the signed BitstringStatusListCredential of a purpose (revocation, suspension) for
// the records of list: each record's bit set while its status is REVOKED (revocation) or SUSPENDED
// (suspension), read from the store now.
func (cs *Credentials) StatusListCredential(ctx context.Context, purpose string, list int64) ([]byte, error) {
	if purpose != credential.PurposeRevocation && purpose != credential.PurposeSuspension {
		return nil, seald.Errorf(seald.ENOTFOUND, "no status list of purpose %q (revocation, suspension)", purpose)
	}
	statuses, err := cs.Statuses.StatusesBetween(ctx, list*credential.ListSize, (list+1)*credential.ListSize)
	if err != nil {
		return nil, err
	}
	bits := credential.NewBitstring(credential.ListSize)
	want := map[string]seald.Status{credential.PurposeRevocation: seald.StatusRevoked, credential.PurposeSuspension: seald.StatusSuspended}[purpose]
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
		ValidFrom: now, TTL: seald.StatusListMaxAge}
	c, err := l.Credential(cs.Service.credentialKey(did))
	if err != nil {
		return nil, &seald.Error{Code: seald.EINTERNAL, Op: "StatusListCredential", Err: err}
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
		case seald.StatusRevoked:
			t.Set(int(i-list*credential.ListSize), credential.TokenInvalid)
		case seald.StatusSuspended:
			t.Set(int(i-list*credential.ListSize), credential.TokenSuspended)
		}
	}
	did, err := cs.Service.DID()
	if err != nil {
		return "", err
	}
	k := cs.Service.credentialKey(did)
	jwt, err := credential.StatusListToken(cs.statusTokenURL(list), t, cs.Service.now(), seald.StatusListMaxAge, k.VerificationMethod, k.Sign)
	if err != nil {
		return "", fmt.Errorf("status list token: %w", err)
	}
	return jwt, nil
}
