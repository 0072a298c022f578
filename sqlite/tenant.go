package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"seald"
)

// CreateBusiness inserts a business, its first project (when p is not nil) and keys in one transaction. A
// business name or id that exists is ECONFLICT, so two operators creating the same tenant at once get one
// business, not two.
func (s *Store) CreateBusiness(ctx context.Context, b *seald.Business, p *seald.Project, keys ...*seald.Key) error {
	return s.write(ctx, "sqlite.CreateBusiness", func(ctx context.Context, tx *wtx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO businesses
			(id, business_id, name, description, logo, website, date_registered) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			b.ID, b.BusinessID, b.Name, b.Description, b.Logo, b.Website, millis(b.DateRegistered)); err != nil {
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
	return s.write(ctx, "sqlite.CreateProject", func(ctx context.Context, tx *wtx) error {
		if err := insertProject(ctx, tx, p); err != nil {
			return err
		}
		return insertKeys(ctx, tx, keys)
	})
}

func insertProject(ctx context.Context, tx *wtx, p *seald.Project) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO projects
		(id, project_id, business_id, name, description, logo, privacy, network, downloadable, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.ID, p.ProjectID, p.BusinessID, p.Name, p.Description, p.Logo, string(p.Privacy), p.Network,
		p.Downloadable, millis(p.CreatedAt))
	return err
}

func insertKeys(ctx context.Context, tx *wtx, keys []*seald.Key) error {
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, `INSERT INTO keys
			(id, kind, business_id, project_id, prefix, digest, created_at, expires_at, revoked_at, sealed)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			k.ID, string(k.Kind), k.BusinessID, nullString(k.ProjectID), k.Prefix, k.Digest, millis(k.CreatedAt),
			nullMillis(k.ExpiresAt), nullMillis(k.RevokedAt), k.Sealed); err != nil {
			return err
		}
	}
	return nil
}

const businessColumns = `id, business_id, name, description, logo, website, date_registered`

func scanBusiness(sc scanner) (*seald.Business, error) {
	var b seald.Business
	var at int64
	if err := sc.Scan(&b.ID, &b.BusinessID, &b.Name, &b.Description, &b.Logo, &b.Website, &at); err != nil {
		return nil, err
	}
	b.DateRegistered = fromMillis(at)
	return &b, nil
}

// BusinessByName finds a business by its exact name, so that a second project joins its business.
func (s *Store) BusinessByName(ctx context.Context, name string) (*seald.Business, error) {
	const op = "sqlite.BusinessByName"
	b, err := scanBusiness(s.qrow(ctx, `SELECT `+businessColumns+` FROM businesses WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(op, "business %q not found", name)
	}
	return b, wrap(op, err)
}

// Business finds a business by its public id.
func (s *Store) Business(ctx context.Context, businessID string) (*seald.Business, error) {
	const op = "sqlite.Business"
	b, err := scanBusiness(s.qrow(ctx, `SELECT `+businessColumns+` FROM businesses WHERE business_id = ?`, businessID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(op, "business %s not found", businessID)
	}
	return b, wrap(op, err)
}

// Project finds a project by its public id.
func (s *Store) Project(ctx context.Context, projectID string) (*seald.Project, error) {
	const op = "sqlite.Project"
	var p seald.Project
	var privacy string
	var at int64
	err := s.qrow(ctx, `SELECT id, project_id, business_id, name, description, logo, privacy, network,
		downloadable, created_at FROM projects WHERE project_id = ?`, projectID).Scan(
		&p.ID, &p.ProjectID, &p.BusinessID, &p.Name, &p.Description, &p.Logo, &privacy, &p.Network, &p.Downloadable, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(op, "project %s not found", projectID)
	}
	if err != nil {
		return nil, wrap(op, err)
	}
	p.Privacy, p.CreatedAt = seald.Privacy(privacy), fromMillis(at)
	return &p, nil
}

// CountBusinesses tells first start whether the default tenant must be created.
func (s *Store) CountBusinesses(ctx context.Context) (int, error) {
	var n int
	err := s.qrow(ctx, `SELECT count(*) FROM businesses`).Scan(&n)
	return n, wrap("sqlite.CountBusinesses", err)
}

// CreateKey inserts a key; a digest that exists is ECONFLICT.
func (s *Store) CreateKey(ctx context.Context, k *seald.Key) error {
	return s.write(ctx, "sqlite.CreateKey", func(ctx context.Context, tx *wtx) error {
		return insertKeys(ctx, tx, []*seald.Key{k})
	})
}

// UpdateKey saves what rotation and revocation change: the expiry, the revocation and the sealed secret.
func (s *Store) UpdateKey(ctx context.Context, k *seald.Key) error {
	const op = "sqlite.UpdateKey"
	return s.write(ctx, op, func(ctx context.Context, tx *wtx) error {
		res, err := tx.ExecContext(ctx, `UPDATE keys SET expires_at = ?, revoked_at = ?, sealed = ? WHERE id = ?`,
			nullMillis(k.ExpiresAt), nullMillis(k.RevokedAt), k.Sealed, k.ID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return notFound(op, "key %s not found", k.ID)
		}
		return nil
	})
}

const keyColumns = `id, kind, business_id, project_id, prefix, digest, created_at, expires_at, revoked_at, sealed`

func scanKey(sc scanner) (*seald.Key, error) {
	var k seald.Key
	var kind string
	var project sql.NullString
	var created int64
	var expires, revoked sql.NullInt64
	if err := sc.Scan(&k.ID, &kind, &k.BusinessID, &project, &k.Prefix, &k.Digest, &created, &expires, &revoked, &k.Sealed); err != nil {
		return nil, err
	}
	k.Kind, k.ProjectID, k.CreatedAt = seald.KeyKind(kind), project.String, fromMillis(created)
	k.ExpiresAt, k.RevokedAt = timePtr(expires), timePtr(revoked)
	return &k, nil
}

// Key finds a key by its id, for the CLI's rotate and revoke.
func (s *Store) Key(ctx context.Context, id string) (*seald.Key, error) {
	const op = "sqlite.Key"
	k, err := scanKey(s.qrow(ctx, `SELECT `+keyColumns+` FROM keys WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(op, "key %s not found", id)
	}
	return k, wrap(op, err)
}

// KeyByDigest finds the key a request presents; the digest is unique, so the lookup is one index probe.
func (s *Store) KeyByDigest(ctx context.Context, digest string) (*seald.Key, error) {
	const op = "sqlite.KeyByDigest"
	k, err := scanKey(s.qrow(ctx, `SELECT `+keyColumns+` FROM keys WHERE digest = ?`, digest))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(op, "key not found")
	}
	return k, wrap(op, err)
}

// Keys lists the keys of a business, or all keys when businessID is empty, oldest first.
func (s *Store) Keys(ctx context.Context, businessID string) ([]*seald.Key, error) {
	const op = "sqlite.Keys"
	q := `SELECT ` + keyColumns + ` FROM keys`
	var args []any
	if businessID != "" {
		q += ` WHERE business_id = ?`
		args = append(args, businessID)
	}
	rows, err := s.qrows(ctx, q+` ORDER BY created_at, id`, args...)
	if err != nil {
		return nil, wrap(op, err)
	}
	defer rows.Close()
	keys := []*seald.Key{}
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, wrap(op, err)
		}
		keys = append(keys, k)
	}
	return keys, wrap(op, rows.Err())
}
