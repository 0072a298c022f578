package sqlstore

import (
	"context"
	"crypto/ed25519"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"seald.dev/seald"
)

const identityColumns = `business_id, domain, did, state, verified_at, checked_at, reason, keys, created_at, updated_at`

// storedKey is an identity key as the keys column keeps it (JSON).
type storedKey struct {
	ID        string `json:"id"`
	Public    string `json:"public"` // base64url of the 32 bytes
	Sealed    string `json:"sealed"`
	CreatedAt int64  `json:"created_at"` // unix milliseconds
}

func scanIdentity(row Row) (*seald.Identity, error) {
	var id seald.Identity
	var state, keys string
	if err := row.Scan(&id.BusinessID, &id.Domain, &id.DID, &state, Time{Null: &id.VerifiedAt}, Time{Null: &id.CheckedAt},
		&id.Reason, &keys, Time{T: &id.CreatedAt}, Time{T: &id.UpdatedAt}); err != nil {
		return nil, err
	}
	id.State = seald.IdentityState(state)
	var stored []storedKey
	if err := jsonInto("identity keys", &keys, &stored); err != nil {
		return nil, err
	}
	for _, k := range stored {
		pub, err := base64.RawURLEncoding.DecodeString(k.Public)
		if err != nil || len(pub) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("identity of %s: key %s is not an Ed25519 public key", id.BusinessID, k.ID)
		}
		id.Keys = append(id.Keys, seald.IdentityKey{ID: k.ID, Public: pub, Sealed: k.Sealed, CreatedAt: time.UnixMilli(k.CreatedAt).UTC()})
	}
	return &id, nil
}

// Identity returns a business's identity; ENOTFOUND when it has none.
func (s *Store) Identity(ctx context.Context, businessID string) (*seald.Identity, error) {
	op := s.op("Identity")
	return one(ctx, s, op, scanIdentity, NotFound(op, "business %s has no identity", businessID),
		`SELECT `+identityColumns+` FROM identities WHERE business_id = ?`, businessID)
}

// SaveIdentity inserts an identity (prev nil) or replaces the one last changed at *prev.
func (s *Store) SaveIdentity(ctx context.Context, id *seald.Identity, prev *time.Time) error {
	op := s.op("SaveIdentity")
	stored := make([]storedKey, len(id.Keys))
	for i, k := range id.Keys {
		stored[i] = storedKey{ID: k.ID, Public: base64.RawURLEncoding.EncodeToString(k.Public), Sealed: k.Sealed, CreatedAt: k.CreatedAt.UnixMilli()}
	}
	keys, err := jsonText(stored, false)
	if err != nil {
		return s.D.Wrap(op, err)
	}
	return s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		if prev == nil {
			_, err := q.Exec(ctx, `INSERT INTO identities (`+identityColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				id.BusinessID, id.Domain, id.DID, string(id.State), s.nullTime(id.VerifiedAt), s.nullTime(id.CheckedAt),
				id.Reason, keys, s.D.Time(id.CreatedAt), s.D.Time(id.UpdatedAt))
			if err != nil && s.isConflict(err) {
				return Conflict(op, "business %s already has an identity", id.BusinessID)
			}
			return err
		}
		n, err := q.Exec(ctx, `UPDATE identities SET domain = ?, did = ?, state = ?, verified_at = ?, checked_at = ?, reason = ?,
			keys = ?, updated_at = ? WHERE business_id = ? AND updated_at = ?`,
			id.Domain, id.DID, string(id.State), s.nullTime(id.VerifiedAt), s.nullTime(id.CheckedAt), id.Reason, keys,
			s.D.Time(id.UpdatedAt), id.BusinessID, s.D.Time(*prev))
		return mustAffect(n, err, Conflict(op, "the identity of %s changed meanwhile: read it again", id.BusinessID))
	})
}

// isConflict reports whether a driver's error is a unique violation.
func (s *Store) isConflict(err error) bool {
	code, _ := s.D.Code(err)
	return code == seald.ECONFLICT
}

// SaveIdentityCheck saves a check's outcome while the identity still names its DID.
func (s *Store) SaveIdentityCheck(ctx context.Context, c *seald.IdentityCheck) (*seald.Identity, error) {
	op := s.op("SaveIdentityCheck")
	var out *seald.Identity
	err := s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		n, err := q.Exec(ctx, `UPDATE identities SET state = ?, verified_at = ?, checked_at = ?, reason = ?,
			updated_at = CASE WHEN updated_at < ? THEN ? ELSE updated_at END WHERE business_id = ? AND did = ?`,
			string(c.State), s.nullTime(c.VerifiedAt), s.D.Time(c.CheckedAt), c.Reason, s.D.Time(c.CheckedAt),
			s.D.Time(c.CheckedAt), c.BusinessID, c.DID)
		if err := mustAffect(n, err, Conflict(op, "the identity of %s no longer names %s", c.BusinessID, c.DID)); err != nil {
			return err
		}
		out, err = scanIdentity(q.QueryRow(ctx, `SELECT `+identityColumns+` FROM identities WHERE business_id = ?`, c.BusinessID))
		if errors.Is(err, sql.ErrNoRows) {
			return NotFound(op, "business %s has no identity", c.BusinessID)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// IdentitiesToCheck lists identities in a state last checked before a time, the oldest first.
func (s *Store) IdentitiesToCheck(ctx context.Context, state seald.IdentityState, before time.Time, limit int) ([]*seald.Identity, error) {
	return list(ctx, s, s.op("IdentitiesToCheck"), scanIdentity,
		`SELECT `+identityColumns+` FROM identities WHERE state = ? AND (checked_at IS NULL OR checked_at < ?)
		ORDER BY checked_at, business_id LIMIT ?`, string(state), s.D.Time(before), limit)
}
