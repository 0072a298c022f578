package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"seald.dev/seald"
)

// CreateBusiness inserts a business, its first project (when p is not nil) and keys in one transaction. A
// business name or id that exists is ECONFLICT, so two operators creating the same tenant at once get one
// business, not two.
func (s *Store) CreateBusiness(ctx context.Context, b *seald.Business, p *seald.Project, keys ...*seald.Key) error {
	return s.E.Write(ctx, s.op("CreateBusiness"), func(ctx context.Context, q Querier) error {
		if _, err := q.Exec(ctx, `INSERT INTO businesses
			(id, business_id, name, description, logo, website, date_registered) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			b.ID, b.BusinessID, b.Name, b.Description, b.Logo, b.Website, s.D.Time(b.DateRegistered)); err != nil {
			return err
		}
		if p != nil {
			if err := s.insertProject(ctx, q, p); err != nil {
				return err
			}
		}
		return s.insertKeys(ctx, q, keys)
	})
}

// CreateProject inserts a project of an existing business and its keys in one transaction; an unknown
// business is ENOTFOUND.
func (s *Store) CreateProject(ctx context.Context, p *seald.Project, keys ...*seald.Key) error {
	return s.E.Write(ctx, s.op("CreateProject"), func(ctx context.Context, q Querier) error {
		if err := s.insertProject(ctx, q, p); err != nil {
			return err
		}
		return s.insertKeys(ctx, q, keys)
	})
}

func (s *Store) insertProject(ctx context.Context, q Querier, p *seald.Project) error {
	_, err := q.Exec(ctx, `INSERT INTO projects
		(id, project_id, business_id, name, description, logo, privacy, network, downloadable, created_at,
		rate_limit, rate_burst, retain_ms, attach_credential) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.ID, p.ProjectID, p.BusinessID, p.Name, p.Description, p.Logo, string(p.Privacy), p.Network,
		p.Downloadable, s.D.Time(p.CreatedAt), p.RateLimit, p.RateBurst, p.Retain.Milliseconds(), p.AttachCredential)
	return err
}

func (s *Store) insertKeys(ctx context.Context, q Querier, keys []*seald.Key) error {
	for _, k := range keys {
		if _, err := q.Exec(ctx, `INSERT INTO keys
			(id, kind, business_id, project_id, prefix, digest, created_at, expires_at, revoked_at, sealed)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			k.ID, string(k.Kind), k.BusinessID, nullString(k.ProjectID), k.Prefix, k.Digest, s.D.Time(k.CreatedAt),
			s.nullTime(k.ExpiresAt), s.nullTime(k.RevokedAt), k.Sealed); err != nil {
			return err
		}
	}
	return nil
}

const selectBusiness = `SELECT id, business_id, name, description, logo, website, date_registered FROM businesses `

func scanBusiness(row Row) (*seald.Business, error) {
	var b seald.Business
	err := row.Scan(&b.ID, &b.BusinessID, &b.Name, &b.Description, &b.Logo, &b.Website, Time{T: &b.DateRegistered})
	return &b, err
}

// BusinessByName finds a business by its exact name, so that a second project joins its business.
func (s *Store) BusinessByName(ctx context.Context, name string) (*seald.Business, error) {
	op := s.op("BusinessByName")
	return one(ctx, s, op, scanBusiness, NotFound(op, "business %q not found", name), selectBusiness+`WHERE name = ?`, name)
}

// Business finds a business by its public id.
func (s *Store) Business(ctx context.Context, businessID string) (*seald.Business, error) {
	op := s.op("Business")
	return one(ctx, s, op, scanBusiness, NotFound(op, "business %s not found", businessID),
		selectBusiness+`WHERE business_id = ?`, businessID)
}

// Project finds a project by its public id.
func (s *Store) Project(ctx context.Context, projectID string) (*seald.Project, error) {
	op := s.op("Project")
	return one(ctx, s, op, scanProject, NotFound(op, "project %s not found", projectID), selectProject+`WHERE project_id = ?`, projectID)
}

const selectProject = `SELECT id, project_id, business_id, name, description, logo, privacy, network, downloadable,
	created_at, rate_limit, rate_burst, retain_ms, attach_credential FROM projects `

func scanProject(row Row) (*seald.Project, error) {
	var p seald.Project
	var privacy string
	var retain int64
	err := row.Scan(&p.ID, &p.ProjectID, &p.BusinessID, &p.Name, &p.Description, &p.Logo, &privacy, &p.Network,
		&p.Downloadable, Time{T: &p.CreatedAt}, &p.RateLimit, &p.RateBurst, &retain, &p.AttachCredential)
	p.Privacy, p.Retain = seald.Privacy(privacy), time.Duration(retain)*time.Millisecond
	return &p, err
}

// SetProjectRate saves a project's own request rate per API key.
func (s *Store) SetProjectRate(ctx context.Context, projectID string, perSecond float64, burst int) error {
	op := s.op("SetProjectRate")
	return s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		n, err := q.Exec(ctx, `UPDATE projects SET rate_limit = ?, rate_burst = ? WHERE project_id = ?`, perSecond, burst, projectID)
		return mustAffect(n, err, NotFound(op, "project %s not found", projectID))
	})
}

// UpdateTenant writes the fields of ch that are set, and no other, in one transaction: an UPDATE of the
// business's columns given and one of the project's, the project only while it is the business's own. Both
// are read back in the same transaction, so the answer is what this change left, not a later one's.
func (s *Store) UpdateTenant(ctx context.Context, ch *seald.TenantChange) (*seald.Business, *seald.Project, error) {
	op := s.op("UpdateTenant")
	var b *seald.Business
	var p *seald.Project
	err := s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		b, p = nil, nil
		var cols []string
		var args []any
		set := func(col string, v any) {
			cols = append(cols, col+" = ?")
			args = append(args, v)
		}
		for _, c := range []struct {
			col string
			v   *string
		}{{"name", ch.Name}, {"description", ch.Description}, {"logo", ch.Logo}, {"website", ch.Website}} {
			if c.v != nil {
				set(c.col, *c.v)
			}
		}
		if len(cols) > 0 {
			n, err := q.Exec(ctx, `UPDATE businesses SET `+strings.Join(cols, ", ")+` WHERE business_id = ?`,
				append(args, ch.BusinessID)...)
			if err := mustAffect(n, err, NotFound(op, "business %s not found", ch.BusinessID)); err != nil {
				return err
			}
		}
		var err error
		if b, err = scanBusiness(q.QueryRow(ctx, selectBusiness+`WHERE business_id = ?`, ch.BusinessID)); err != nil {
			return orMissing(err, NotFound(op, "business %s not found", ch.BusinessID))
		}
		if ch.ProjectID == "" {
			return nil
		}
		notOwn := NotFound(op, "project %s is not a project of business %s", ch.ProjectID, ch.BusinessID)
		cols, args = cols[:0], args[:0]
		for _, c := range []struct {
			col string
			v   *string
		}{{"name", ch.ProjectName}, {"description", ch.ProjectDescription}, {"logo", ch.ProjectLogo}} {
			if c.v != nil {
				set(c.col, *c.v)
			}
		}
		if ch.Retain != nil {
			set("retain_ms", ch.Retain.Milliseconds())
		}
		if ch.AttachCredential != nil {
			set("attach_credential", *ch.AttachCredential)
		}
		if len(cols) > 0 {
			n, err := q.Exec(ctx, `UPDATE projects SET `+strings.Join(cols, ", ")+` WHERE project_id = ? AND business_id = ?`,
				append(args, ch.ProjectID, ch.BusinessID)...)
			if err := mustAffect(n, err, notOwn); err != nil {
				return err
			}
		}
		p, err = scanProject(q.QueryRow(ctx, selectProject+`WHERE project_id = ? AND business_id = ?`, ch.ProjectID, ch.BusinessID))
		return orMissing(err, notOwn)
	})
	if err != nil {
		return nil, nil, err
	}
	return b, p, nil
}

// orMissing is err, or missing when err says the row was not there.
func orMissing(err, missing error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return missing
	}
	return err
}

// CountBusinesses tells first start whether the default tenant must be created.
func (s *Store) CountBusinesses(ctx context.Context) (int, error) {
	return one(ctx, s, s.op("CountBusinesses"), func(row Row) (n int, err error) {
		err = row.Scan(&n)
		return n, err
	}, nil, `SELECT count(*) FROM businesses`)
}

// CreateKey inserts a key; a digest that exists is ECONFLICT.
func (s *Store) CreateKey(ctx context.Context, k *seald.Key) error {
	return s.E.Write(ctx, s.op("CreateKey"), func(ctx context.Context, q Querier) error {
		return s.insertKeys(ctx, q, []*seald.Key{k})
	})
}

// UpdateKey saves what rotation and revocation change: the expiry, the revocation and the sealed secret.
func (s *Store) UpdateKey(ctx context.Context, k *seald.Key) error {
	op := s.op("UpdateKey")
	return s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		n, err := q.Exec(ctx, `UPDATE keys SET expires_at = ?, revoked_at = ?, sealed = ? WHERE id = ?`,
			s.nullTime(k.ExpiresAt), s.nullTime(k.RevokedAt), k.Sealed, k.ID)
		return mustAffect(n, err, NotFound(op, "key %s not found", k.ID))
	})
}

const selectKey = `SELECT id, kind, business_id, project_id, prefix, digest, created_at, expires_at, revoked_at, sealed
	FROM keys `

func scanKey(row Row) (*seald.Key, error) {
	var k seald.Key
	var kind string
	var project *string
	var expires, revoked *time.Time
	if err := row.Scan(&k.ID, &kind, &k.BusinessID, &project, &k.Prefix, &k.Digest, Time{T: &k.CreatedAt},
		Time{Null: &expires}, Time{Null: &revoked}, &k.Sealed); err != nil {
		return nil, err
	}
	k.Kind, k.ExpiresAt, k.RevokedAt = seald.KeyKind(kind), expires, revoked
	if project != nil {
		k.ProjectID = *project
	}
	return &k, nil
}

// Key finds a key by its id, for the CLI's rotate and revoke.
func (s *Store) Key(ctx context.Context, id string) (*seald.Key, error) {
	op := s.op("Key")
	return one(ctx, s, op, scanKey, NotFound(op, "key %s not found", id), selectKey+`WHERE id = ?`, id)
}

// KeyByDigest finds the key a request presents; the digest is unique, so the lookup is one index probe.
func (s *Store) KeyByDigest(ctx context.Context, digest string) (*seald.Key, error) {
	op := s.op("KeyByDigest")
	return one(ctx, s, op, scanKey, NotFound(op, "key not found"), selectKey+`WHERE digest = ?`, digest)
}

// Keys lists the keys of a business, or all keys when businessID is empty, oldest first.
func (s *Store) Keys(ctx context.Context, businessID string) ([]*seald.Key, error) {
	if businessID == "" {
		return list(ctx, s, s.op("Keys"), scanKey, selectKey+`ORDER BY created_at, id`)
	}
	return list(ctx, s, s.op("Keys"), scanKey, selectKey+`WHERE business_id = ? ORDER BY created_at, id`, businessID)
}
