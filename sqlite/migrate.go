package sqlite

import (
	"context"
	"embed"
	"fmt"
	"time"

	"seald/internal/migration"
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
	return s.write(ctx, "sqlite.migrate", func(ctx context.Context, tx *wtx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at INTEGER NOT NULL
		) STRICT`); err != nil {
			return err
		}
		applied := map[int]bool{}
		rows, err := tx.QueryContext(ctx, `SELECT version FROM schema_migrations`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var v int
			if err := rows.Scan(&v); err != nil {
				return err
			}
			applied[v] = true
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		for _, m := range ms {
			if applied[m.Version] {
				continue
			}
			if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				m.Version, m.Name, time.Now().UnixMilli()); err != nil {
				return err
			}
		}
		return nil
	})
}
