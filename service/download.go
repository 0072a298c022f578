package service

import (
	"context"
	"errors"
	"time"

	"seald.dev/seald"
)

// Download returns the original canonical data of a record to its owner (or the operator), read back from
// IPFS and decrypted; a nil caller is EUNAUTHORIZED.
func (s *Service) Download(ctx context.Context, c *seald.Caller, reference, password string) ([]byte, error) {
	r, err := s.owned(ctx, c, reference)
	if err != nil {
		return nil, err
	}
	if r.Erased() {
		return nil, erasedData(r)
	}
	if !r.Downloadable {
		return nil, seald.Errorf(seald.EINVALID, "the data of record %s is not downloadable", reference)
	}
	if err := s.checkPassword(ctx, r, password); err != nil {
		return nil, err
	}
	return s.recordData(ctx, r)
}

// checkPassword is nil for a record without a password or with password its own, ErrWrongPassword
// otherwise: the guard of everything that gives a record's data (Download, Disclosure).
func (s *Service) checkPassword(ctx context.Context, r *seald.Record, password string) error {
	if !r.HasPassword {
		return nil
	}
	ok, err := s.Secrets.CheckPassword(ctx, r.PasswordHash, password)
	if err != nil {
		return err
	}
	if !ok {
		return seald.ErrWrongPassword
	}
	return nil
}

// recordData reads a record's canonical data back: from the store while its store step has not run, else from
// IPFS, and decrypts it.
func (s *Service) recordData(ctx context.Context, r *seald.Record) ([]byte, error) {
	reference := r.Reference
	if r.CID == "" {
		// Not in IPFS yet: the payload is still in the store, unless the store step moved it to IPFS since
		// the record was read; then the record, read again, has its CID.
		b, err := s.Store.Payload(ctx, reference)
		switch {
		case err == nil:
			if !seald.SealedPayload(b) {
				return b, nil
			}
			return s.Secrets.OpenDetached(reference, r.DataKey, b)
		case seald.ErrorCode(err) != seald.ENOTFOUND:
			return nil, err
		}
		if r, err = s.Store.Record(ctx, reference); err != nil {
			return nil, err
		}
		if r.Erased() {
			return nil, erasedData(r)
		}
		if r.CID == "" {
			return nil, seald.Errorf(seald.ENOTFOUND, "the data of record %s is not stored yet", reference)
		}
	}
	if s.Blobs == nil {
		return nil, seald.Errorf(seald.EUNAVAILABLE, "IPFS is not configured")
	}
	env, err := s.Blobs.Get(ctx, r.CID)
	if err != nil {
		if seald.ErrorCode(err) == seald.ENOTFOUND {
			return nil, &seald.Error{Code: seald.EINTERNAL, Op: "Download", Err: errors.New("stored envelope missing from IPFS")}
		}
		return nil, &seald.Error{Code: seald.EUNAVAILABLE, Message: "IPFS is not answering; try again later", Err: err}
	}
	return s.Secrets.OpenDetached(reference, r.DataKey, env)
}

// erasedData is the EGONE answer of a download of an erased record.
func erasedData(r *seald.Record) error {
	return seald.Errorf(seald.EGONE, "the data of record %s was erased on %s; its proof still verifies", r.Reference,
		r.ErasedAt.Format(time.RFC3339))
}
