package postgres

import (
	"context"
	"embed"

	"github.com/jackc/pgx/v5"

	"seald.dev/seald/internal/migration"
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
		_, err := s.Migrate(ctx, pq{tx}, ms, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    integer PRIMARY KEY,
			name       text NOT NULL,
			applied_at timestamptz NOT NULL
		)`)
		return err
	})
}
