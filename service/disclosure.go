package service

import (
	"context"
	"encoding/hex"
	"strconv"
	"strings"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// Disclosure returns the disclosure package of a record to its owner (or the operator). A record sealed
// before selective disclosure has no commitment (EINVALID); one not anchored yet is ECONFLICT; an erased
// one is EGONE, for good: its salts went with its key. The package holds the data, so it is guarded as the
// download is: the project must allow downloads, and a record's password is needed.
func (s *Service) Disclosure(ctx context.Context, c *seald.Caller, reference, password string) (*proof.DisclosurePackage, error) {
	r, err := s.owned(ctx, c, reference)
	if err != nil {
		return nil, err
	}
	if r.Erased() {
		return nil, seald.Errorf(seald.EGONE, "record %s was erased on %s: its disclosures are destroyed and no package can be made again; presentations made before still verify",
			r.Reference, r.ErasedAt.UTC().Format("2006-01-02T15:04:05Z"))
	}
	if r.Disclosure == "" && r.State != seald.StatePending { // a PENDING record gets its commitment in the store step
		return nil, seald.Errorf(seald.EINVALID, "record %s was sealed before selective disclosure: it has no disclosure commitment", r.Reference)
	}
	if r.TokenID == 0 || r.BatchID == 0 {
		return nil, seald.Errorf(seald.ECONFLICT, "record %s is not anchored yet (state %s): ask again once it is ANCHORED", r.Reference, r.State)
	}
	b, err := s.Store.Batch(ctx, r.BatchID)
	if err != nil {
		return nil, err
	}
	if b.State != seald.BatchConfirmed {
		return nil, seald.Errorf(seald.ECONFLICT, "record %s is not anchored yet (state %s): ask again once it is ANCHORED", r.Reference, r.State)
	}
	if r.DisclosurePath == nil {
		// Sealed by this version but batched by an earlier one (a rolling upgrade): its commitment is not on chain.
		return nil, seald.Errorf(seald.EINVALID, "record %s was anchored without its disclosure commitment, so it has no disclosure package", r.Reference)
	}
	if !r.Downloadable {
		// The package holds every member's value: a project that keeps its data from being downloaded keeps it
		// from this too.
		return nil, seald.Errorf(seald.EINVALID, "the data of record %s is not downloadable, so no disclosure package is given", reference)
	}
	if err := s.checkPassword(ctx, r, password); err != nil {
		return nil, err
	}
	canon, err := s.recordData(ctx, r)
	if err != nil {
		return nil, err
	}
	secret, err := s.Secrets.DisclosureSecret(r.Reference, r.DataKey)
	if err != nil {
		return nil, err
	}
	sd, err := proof.BuildSD(canon, secret)
	if err != nil {
		return nil, ownData("Disclosure", err)
	}
	if hex.EncodeToString(sd.Commitment[:]) != r.Disclosure {
		return nil, &seald.Error{Code: seald.EINTERNAL, Op: "Disclosure", Message: "the disclosures do not match the record's commitment"}
	}
	ch := s.Chains[r.Network]
	pkg := &proof.DisclosurePackage{
		Type: proof.TypeDisclosurePackage, Version: proof.DisclosureVersion, Reference: r.Reference,
		DisclosureAnchor: proof.DisclosureAnchor{Network: r.Network, ChainID: ch.ChainID, ChainName: ch.Name(),
			Contract: ch.Contract, TokenID: strconv.FormatUint(r.TokenID, 10), MerklePath: r.DisclosurePath,
			Root: b.Root, TxHash: b.TxHash, BlockNumber: b.BlockNumber},
		SDPayload: sd.Payload, Commitment: r.Disclosure, Disclosures: sd.Disclosures,
	}
	who, priv, err := s.recordIssuer(ctx, r, true)
	if err != nil {
		return nil, err
	}
	jwt, err := proof.SignIssuerJWTBy(sd.Payload, strings.TrimRight(s.PublicURL, "/"), r.CreatedAt, pkg.DisclosureAnchor, r.Disclosure, s.Secrets, who, priv)
	if err != nil {
		return nil, ownData("Disclosure", err)
	}
	all := make([]string, len(sd.Disclosures))
	for i, d := range sd.Disclosures {
		all[i] = d.Disclosure
	}
	pkg.SDJWT = proof.JoinSDJWT(jwt, all)
	return pkg, nil
}

// ownData marks package proof's refusal of a record's own data, validated when it was sealed, as seald's
// fault (EINTERNAL), not the caller's: ErrorCode takes any other refusal of package proof for bad input.
func ownData(op string, err error) error {
	return &seald.Error{Code: seald.EINTERNAL, Op: op, Err: err}
}
