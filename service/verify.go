package service

import (
	"context"
	"strconv"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// Verify finds the record a lookup names, if the caller may see it. A record that exists but is PRIVATE to
// another business is the same ENOTFOUND as one that does not exist, so existence does not leak. Verify only
// reads, so it is the one operation of the API where a nil caller is allowed: it is an anonymous reader, who
// sees PUBLIC records only (the operator sees every record).
func (s *Service) Verify(ctx context.Context, c *seald.Caller, l seald.Lookup) (*seald.Verification, error) {
	if l.Proof {
		l.Whole = true // the proof needs the Merkle path and the batch, which a brief read leaves out
	}
	r, n, err := s.find(ctx, c, l)
	if err != nil {
		return nil, err
	}
	v, err := s.verification(ctx, c, r)
	if err != nil {
		return nil, err
	}
	v.SameHash = n
	if l.Proof {
		p, err := s.proof(ctx, r)
		if err != nil && seald.ErrorCode(err) != seald.ENOTFOUND {
			return nil, err
		}
		v.Proof = p // nil until the record is anchored
	}
	return v, nil
}

// find returns the record a lookup names and, for a lookup by hash or data, how many visible records hold
// that hash.
func (s *Service) find(ctx context.Context, c *seald.Caller, l seald.Lookup) (*seald.Record, int, error) {
	notFound := func(what, v string) error { return seald.Errorf(seald.ENOTFOUND, "no record with %s %s", what, v) }
	switch {
	case l.OVI != "":
		ref, hash, err := s.Secrets.DecryptOVI(l.OVI)
		if err != nil {
			return nil, 0, err
		}
		r, err := s.record(ctx, ref, l.Whole)
		if seald.ErrorCode(err) == seald.ENOTFOUND || err == nil && (!visible(c, r) || r.Hash != hash) {
			return nil, 0, seald.Errorf(seald.ENOTFOUND, "no record for this encrypted reference")
		}
		return r, 0, err
	case l.Reference != "":
		if err := seald.ParseReference(l.Reference); err != nil {
			return nil, 0, err
		}
		r, err := s.record(ctx, l.Reference, l.Whole)
		if seald.ErrorCode(err) == seald.ENOTFOUND || err == nil && !visible(c, r) {
			return nil, 0, notFound("reference", l.Reference)
		}
		return r, 0, err
	case l.Data != nil || l.Hash != "":
		hash := l.Hash
		if l.Data != nil {
			var err error
			if _, hash, err = s.hashData(l.Data); err != nil {
				return nil, 0, err
			}
		} else if !proof.IsHash(hash) {
			return nil, 0, seald.Errorf(seald.EINVALID, "hash must be 64 lowercase hex digits (SHA-256)")
		}
		var rs []*seald.Record
		var err error
		if l.Whole {
			rs, err = s.Store.RecordsByHash(ctx, hash)
		} else {
			rs, err = s.Store.RecordsByHashBrief(ctx, hash)
		}
		if err != nil && seald.ErrorCode(err) != seald.ENOTFOUND {
			return nil, 0, err
		}
		pick, n := pickSameHash(c, rs)
		if pick == nil {
			if l.Data != nil {
				return nil, 0, seald.Errorf(seald.ENOTFOUND, "no record of this data")
			}
			return nil, 0, notFound("hash", hash)
		}
		return pick, n, nil
	case l.CID != "":
		r, err := s.Store.RecordByCID(ctx, l.CID)
		if seald.ErrorCode(err) == seald.ENOTFOUND || err == nil && !visible(c, r) {
			return nil, 0, notFound("cid", l.CID)
		}
		return r, 0, err
	case l.TokenID != "":
		network, err := seald.ParseNetwork(l.Network)
		if err != nil {
			return nil, 0, err
		}
		id, ok, err := seald.ParseTokenID(l.TokenID)
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			return nil, 0, seald.Errorf(seald.ENOTFOUND, "no record with token_id %s on %s", l.TokenID, network)
		}
		r, err := s.Store.RecordByToken(ctx, network, id)
		if seald.ErrorCode(err) == seald.ENOTFOUND || err == nil && !visible(c, r) {
			return nil, 0, seald.Errorf(seald.ENOTFOUND, "no record with token_id %s on %s", l.TokenID, network)
		}
		return r, 0, err
	}
	return nil, 0, seald.Errorf(seald.EINVALID, "a reference, hash, cid, token_id or data is required")
}

// record reads a record whole or only the fields of Record.Brief.
func (s *Service) record(ctx context.Context, reference string, whole bool) (*seald.Record, error) {
	if whole {
		return s.Store.Record(ctx, reference)
	}
	return s.Store.RecordBrief(ctx, reference)
}

// pickSameHash chooses among the records of one hash the one a verification by hash or data answers: the
// caller's own first, else the one that anchored earliest while ACTIVE (the oldest proof of existence that
// still stands), else the earliest anchored, else the earliest sealed. It also counts the visible ones.
func pickSameHash(c *seald.Caller, rs []*seald.Record) (*seald.Record, int) {
	rank := func(r *seald.Record) int {
		n := 0
		if !c.Owns(r.BusinessID) {
			n += 4
		}
		if !r.Anchored() {
			n += 2
		}
		if r.Status != seald.StatusActive {
			n++
		}
		return n
	}
	var pick *seald.Record
	n := 0
	for _, r := range rs {
		if !visible(c, r) {
			continue
		}
		n++
		if pick == nil || rank(r) < rank(pick) || rank(r) == rank(pick) && earlier(r, pick) {
			pick = r
		}
	}
	return pick, n
}

// earlier orders records of one hash: by token id when both have one (the chain's own order), else by
// creation.
func earlier(a, b *seald.Record) bool {
	if a.TokenID != 0 && b.TokenID != 0 && a.Network == b.Network {
		return a.TokenID < b.TokenID
	}
	return a.CreatedAt.Before(b.CreatedAt)
}

// verification completes a record found for c with its owner. The caller's own records (most verifications
// of an API client) reuse the project and business Authenticate already has; others come from the cache.
func (s *Service) verification(ctx context.Context, c *seald.Caller, r *seald.Record) (*seald.Verification, error) {
	if c.Owns(r.BusinessID) && c.Project != nil && c.Project.ProjectID == r.ProjectID {
		return &seald.Verification{Record: r, Business: c.Business, Project: c.Project}, nil
	}
	now := s.now()
	p, err := s.project(ctx, r.ProjectID, now)
	if err != nil {
		return nil, err
	}
	b, err := s.business(ctx, r.BusinessID, now)
	if err != nil {
		return nil, err
	}
	return &seald.Verification{Record: r, Business: b, Project: p}, nil
}

// proof returns the proof bundle of an anchored record, read whole; ENOTFOUND before it is anchored.
func (s *Service) proof(ctx context.Context, r *seald.Record) (*proof.Bundle, error) {
	if r.TokenID == 0 || r.BatchID == 0 {
		return nil, seald.Errorf(seald.ENOTFOUND, "record %s is not anchored yet", r.Reference)
	}
	b, err := s.Store.Batch(ctx, r.BatchID)
	if err != nil {
		return nil, err
	}
	if b.State != seald.BatchConfirmed {
		return nil, seald.Errorf(seald.ENOTFOUND, "record %s is not anchored yet", r.Reference)
	}
	ch := s.Chains[r.Network]
	p := &proof.Bundle{
		Version: proof.Version, Reference: r.Reference, Hash: r.Hash, CID: r.CID, Network: r.Network,
		ChainID: ch.ChainID, ChainName: ch.Name(), Contract: ch.Contract, TokenID: strconv.FormatUint(r.TokenID, 10),
		Leaf: r.Leaf, MerklePath: r.MerklePath, Root: b.Root, TxHash: b.TxHash, BlockNumber: b.BlockNumber,
	}
	if p.MerklePath == nil {
		p.MerklePath = []string{}
	}
	p.Sign(s.Secrets)
	return p, nil
}
