package postgres

import (
	"context"
	"embed"
	"fmt"

	"github.com/jackc/pgx/v5"

	"seald/internal/migration"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrate applies the migrations the schema lacks in one transaction, holding a transaction advisory lock
// of the schema: seald instances starting together wait for the first, then find its migrations applied.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migration.Load(migrationFiles, "migrations")
	if err != nil {
		return err
	}
	return s.tx(ctx, "postgres.migrate", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, s.key("seald.migrate")); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    integer PRIMARY KEY,
			name       text NOT NULL,
			applied_at timestamptz NOT NULL
		)`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT version FROM schema_migrations`)
		if err != nil {
			return err
		}
		applied, err := pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			return err
		}
		done := map[int]bool{}
		for _, v := range applied {
			done[v] = true
		}
		for _, m := range ms {
			if done[m.Version] {
				continue
			}
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at)
				VALUES ($1, $2, date_trunc('milliseconds', now()))`, m.Version, m.Name); err != nil {
				return err
			}
		}
		return nil
	})
}
