package seald

import (
	"context"
	"errors"
	"time"
)

// ErrWrongPassword is the EUNAUTHORIZED answer of a download whose password is missing or wrong.
var ErrWrongPassword = Errorf(EUNAUTHORIZED, "the X-Data-Password header is missing or does not match the record's password")

// Download returns the original canonical data of a record to its owner (or the operator), read back from
// IPFS and decrypted; a nil caller is EUNAUTHORIZED.
func (s *Service) Download(ctx context.Context, c *Caller, reference, password string) ([]byte, error) {
	r, err := s.owned(ctx, c, reference)
	if err != nil {
		return nil, err
	}
	if r.Erased() {
		return nil, erasedData(r)
	}
	if !r.Downloadable {
		return nil, Errorf(EINVALID, "the data of record %s is not downloadable", reference)
	}
	if err := s.checkPassword(ctx, r, password); err != nil {
		return nil, err
	}
	return s.recordData(ctx, r)
}

// checkPassword is nil for a record without a password or with password its own, ErrWrongPassword
// otherwise: the guard of everything that gives a record's data (Download, Disclosure).
func (s *Service) checkPassword(ctx context.Context, r *Record, password string) error {
	if !r.HasPassword {
		return nil
	}
	ok, err := s.Secrets.CheckPassword(ctx, r.PasswordHash, password)
	if err != nil {
		return err
	}
	if !ok {
		return ErrWrongPassword
	}
	return nil
}

// recordData reads a record's canonical data back: from the store while its store step has not run, else from
// IPFS, and decrypts it.
func (s *Service) recordData(ctx context.Context, r *Record) ([]byte, error) {
	reference := r.Reference
	if r.CID == "" {
		// Not in IPFS yet: the payload is still in the store, unless the store step moved it to IPFS since
		// the record was read; then the record, read again, has its CID.
		b, err := s.Store.Payload(ctx, reference)
		switch {
		case err == nil:
			if !SealedPayload(b) {
				return b, nil
			}
			return s.Secrets.OpenDetached(reference, r.DataKey, b)
		case ErrorCode(err) != ENOTFOUND:
			return nil, err
		}
		if r, err = s.Store.Record(ctx, reference); err != nil {
			return nil, err
		}
		if r.Erased() {
			return nil, erasedData(r)
		}
		if r.CID == "" {
			return nil, Errorf(ENOTFOUND, "the data of record %s is not stored yet", reference)
		}
	}
	if s.Blobs == nil {
		return nil, Errorf(EUNAVAILABLE, "IPFS is not configured")
	}
	env, err := s.Blobs.Get(ctx, r.CID)
	if err != nil {
		if ErrorCode(err) == ENOTFOUND {
			return nil, &Error{Code: EINTERNAL, Op: "Download", Err: errors.New("stored envelope missing from IPFS")}
		}
		return nil, &Error{Code: EUNAVAILABLE, Message: "IPFS is not answering; try again later", Err: err}
	}
	return s.Secrets.OpenDetached(reference, r.DataKey, env)
}

// erasedData is the EGONE answer of a download of an erased record.
func erasedData(r *Record) error {
	return Errorf(EGONE, "the data of record %s was erased on %s; its proof still verifies", r.Reference,
		r.ErasedAt.Format(time.RFC3339))
}
