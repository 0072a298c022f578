package sqlite

import (
	"context"
	"embed"

	"seald.dev/seald/internal/migration"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrate applies the migrations the database lacks, all in one write transaction: BEGIN IMMEDIATE makes a
// second process opening the same file at the same moment wait, then find them applied.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migration.Load(migrationFiles, "migrations")
	if err != nil {
		return err
	}
	return s.write(ctx, "sqlite.migrate", func(ctx context.Context, q *querier) error {
		return s.Migrate(ctx, q, ms, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at INTEGER NOT NULL
		) STRICT`)
	})
}
