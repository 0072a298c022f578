package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"seald"
)

// CreateBusiness inserts a business, its first project (when p is not nil) and keys in one transaction. A
// business name or id that exists is ECONFLICT, so two operators creating the same tenant at once get one
// business, not two.
func (s *Store) CreateBusiness(ctx context.Context, b *seald.Business, p *seald.Project, keys ...*seald.Key) error {
	return s.tx(ctx, "postgres.CreateBusiness", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO businesses
			(id, business_id, name, description, logo, website, date_registered) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			b.ID, b.BusinessID, b.Name, b.Description, b.Logo, b.Website, ts(b.DateRegistered)); err != nil {
			return err
		}
		if p != nil {
			if err := insertProject(ctx, tx, p); err != nil {
				return err
			}
		}
		return insertKeys(ctx, tx, keys)
	})
}

// CreateProject inserts a project of an existing business and its keys in one transaction; an unknown
// business is ENOTFOUND.
func (s *Store) CreateProject(ctx context.Context, p *seald.Project, keys ...*seald.Key) error {
	return s.tx(ctx, "postgres.CreateProject", func(tx pgx.Tx) error {
		if err := insertProject(ctx, tx, p); err != nil {
			return err
		}
		return insertKeys(ctx, tx, keys)
	})
}

func insertProject(ctx context.Context, tx pgx.Tx, p *seald.Project) error {
	_, err := tx.Exec(ctx, `INSERT INTO projects
		(id, project_id, business_id, name, description, logo, privacy, network, downloadable, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		p.ID, p.ProjectID, p.BusinessID, p.Name, p.Description, p.Logo, string(p.Privacy), p.Network,
		p.Downloadable, ts(p.CreatedAt))
	return err
}

func insertKeys(ctx context.Context, tx pgx.Tx, keys []*seald.Key) error {
	for _, k := range keys {
		if _, err := tx.Exec(ctx, `INSERT INTO keys
			(id, kind, business_id, project_id, prefix, digest, created_at, expires_at, revoked_at, sealed)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			k.ID, string(k.Kind), k.BusinessID, nullString(k.ProjectID), k.Prefix, k.Digest, ts(k.CreatedAt),
			nullTS(k.ExpiresAt), nullTS(k.RevokedAt), k.Sealed); err != nil {
			return err
		}
	}
	return nil
}

const businessColumns = `id, business_id, name, description, logo, website, date_registered`

func scanBusiness(row pgx.Row) (*seald.Business, error) {
	var b seald.Business
	if err := row.Scan(&b.ID, &b.BusinessID, &b.Name, &b.Description, &b.Logo, &b.Website, &b.DateRegistered); err != nil {
		return nil, err
	}
	b.DateRegistered = b.DateRegistered.UTC()
	return &b, nil
}

// business reads one business by a unique column.
func (s *Store) business(ctx context.Context, op, column, value, what string) (*seald.Business, error) {
	var b *seald.Business
	err := s.read(ctx, op, func(q querier) error {
		var err error
		b, err = scanBusiness(q.QueryRow(ctx, `SELECT `+businessColumns+` FROM businesses WHERE `+column+` = $1`, value))
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound(op, "business %s not found", what)
		}
		return err
	})
	return b, err
}

// BusinessByName finds a business by its exact name, so that a second project joins its business.
func (s *Store) BusinessByName(ctx context.Context, name string) (*seald.Business, error) {
	return s.business(ctx, "postgres.BusinessByName", "name", name, `"`+name+`"`)
}

// Business finds a business by its public id.
func (s *Store) Business(ctx context.Context, businessID string) (*seald.Business, error) {
	return s.business(ctx, "postgres.Business", "business_id", businessID, businessID)
}

// Project finds a project by its public id.
func (s *Store) Project(ctx context.Context, projectID string) (*seald.Project, error) {
	const op = "postgres.Project"
	var p seald.Project
	err := s.read(ctx, op, func(q querier) error {
		var privacy string
		err := q.QueryRow(ctx, `SELECT id, project_id, business_id, name, description, logo, privacy, network,
			downloadable, created_at FROM projects WHERE project_id = $1`, projectID).Scan(
			&p.ID, &p.ProjectID, &p.BusinessID, &p.Name, &p.Description, &p.Logo, &privacy, &p.Network,
			&p.Downloadable, &p.CreatedAt)
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound(op, "project %s not found", projectID)
		}
		p.Privacy, p.CreatedAt = seald.Privacy(privacy), p.CreatedAt.UTC()
		return err
	})
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// CountBusinesses tells first start whether the default tenant must be created.
func (s *Store) CountBusinesses(ctx context.Context) (int, error) {
	var n int
	err := s.read(ctx, "postgres.CountBusinesses", func(q querier) error {
		return q.QueryRow(ctx, `SELECT count(*) FROM businesses`).Scan(&n)
	})
	return n, err
}

// CreateKey inserts a key; a digest that exists is ECONFLICT.
func (s *Store) CreateKey(ctx context.Context, k *seald.Key) error {
	return s.tx(ctx, "postgres.CreateKey", func(tx pgx.Tx) error {
		return insertKeys(ctx, tx, []*seald.Key{k})
	})
}

// UpdateKey saves what rotation and revocation change: the expiry, the revocation and the sealed secret.
func (s *Store) UpdateKey(ctx context.Context, k *seald.Key) error {
	const op = "postgres.UpdateKey"
	return s.tx(ctx, op, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE keys SET expires_at = $1, revoked_at = $2, sealed = $3 WHERE id = $4`,
			nullTS(k.ExpiresAt), nullTS(k.RevokedAt), k.Sealed, k.ID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return notFound(op, "key %s not found", k.ID)
		}
		return nil
	})
}

const keyColumns = `id, kind, business_id, project_id, prefix, digest, created_at, expires_at, revoked_at, sealed`

func scanKey(row pgx.Row) (*seald.Key, error) {
	var k seald.Key
	var kind string
	var project *string
	var expires, revoked *time.Time
	if err := row.Scan(&k.ID, &kind, &k.BusinessID, &project, &k.Prefix, &k.Digest, &k.CreatedAt, &expires, &revoked, &k.Sealed); err != nil {
		return nil, err
	}
	k.Kind, k.CreatedAt = seald.KeyKind(kind), k.CreatedAt.UTC()
	if project != nil {
		k.ProjectID = *project
	}
	k.ExpiresAt, k.RevokedAt = utcPtr(expires), utcPtr(revoked)
	return &k, nil
}

// keyBy reads one key by a unique column.
func (s *Store) keyBy(ctx context.Context, op, column, value, missing string) (*seald.Key, error) {
	var k *seald.Key
	err := s.read(ctx, op, func(q querier) error {
		var err error
		k, err = scanKey(q.QueryRow(ctx, `SELECT `+keyColumns+` FROM keys WHERE `+column+` = $1`, value))
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound(op, "%s", missing)
		}
		return err
	})
	return k, err
}

// Key finds a key by its id, for the CLI's rotate and revoke.
func (s *Store) Key(ctx context.Context, id string) (*seald.Key, error) {
	return s.keyBy(ctx, "postgres.Key", "id", id, "key "+id+" not found")
}

// KeyByDigest finds the key a request presents; the digest is unique, so the lookup is one index probe.
func (s *Store) KeyByDigest(ctx context.Context, digest string) (*seald.Key, error) {
	return s.keyBy(ctx, "postgres.KeyByDigest", "digest", digest, "key not found")
}

// Keys lists the keys of a business, or all keys when businessID is empty, oldest first.
func (s *Store) Keys(ctx context.Context, businessID string) ([]*seald.Key, error) {
	var keys []*seald.Key
	err := s.read(ctx, "postgres.Keys", func(q querier) error {
		rows, err := q.Query(ctx, `SELECT `+keyColumns+` FROM keys WHERE $1 = '' OR business_id = $1
			ORDER BY created_at, id`, businessID)
		if err != nil {
			return err
		}
		keys, err = collect(rows, scanKey)
		return err
	})
	return keys, err
}

// collect scans every row with scan into a non-nil slice.
func collect[T any](rows pgx.Rows, scan func(pgx.Row) (T, error)) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
