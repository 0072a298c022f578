package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"seald.dev/seald/internal/migration"
)

// Migrate applies, in the transaction of q, the migrations that schema_migrations does not list yet,
// creating that table first with createTable (its column types are the dialect's). The caller makes the
// transaction exclusive (SQLite's BEGIN IMMEDIATE, PostgreSQL's advisory lock), so that instances starting
// together apply each migration once. It returns the names of those it applied.
func (s *Store) Migrate(ctx context.Context, q Querier, ms []migration.Migration, createTable string) ([]string, error) {
	if _, err := q.Exec(ctx, createTable); err != nil {
		return nil, err
	}
	rows, err := q.Query(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	applied, err := collect(rows, func(row Row) (v int, err error) {
		err = row.Scan(&v)
		return v, err
	})
	if err != nil {
		return nil, err
	}
	var ran []string
	for _, m := range ms {
		if slices.Contains(applied, m.Version) {
			continue
		}
		if _, err := q.Exec(ctx, m.SQL); err != nil {
			return ran, fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if _, err := q.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
			m.Version, m.Name, s.D.Time(time.Now())); err != nil {
			return ran, err
		}
		ran = append(ran, m.Name)
	}
	return ran, nil
}
