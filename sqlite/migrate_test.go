package sqlite

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"seald.dev/seald/internal/migration"
)

// Migrations run with foreign keys off, as a table made again needs (0017 makes record_facts again, which other tables
// name), and every key is checked before they commit: a migration that leaves a row naming no row fails,
// naming its table, and leaves nothing of itself, and the writer's connection checks foreign keys again
// afterwards, as it does after migrations that succeed.
func TestMigrationForeignKeys(t *testing.T) {
	ms, err := migration.Load(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	// with returns the store's migrations and one more, version 9999, of sql.
	with := func(sql string) []migration.Migration {
		return append(slices.Clip(ms), migration.Migration{Version: 9999, Name: "9999_test.sql", SQL: sql})
	}
	// writerChecksKeys fails t unless the writer's connection refuses a row that names no record.
	writerChecksKeys := func(t *testing.T, h *harnessStore) {
		t.Helper()
		var on int
		if err := h.w.QueryRowContext(t.Context(), `PRAGMA foreign_keys`).Scan(&on); err != nil || on != 1 {
			t.Errorf("writer PRAGMA foreign_keys = %d (%v), want 1", on, err)
		}
		if _, err := h.w.ExecContext(t.Context(), `INSERT INTO payloads (seq, data) VALUES (424242, x'00')`); err == nil {
			t.Error("the writer stored a payload of no record")
		}
	}

	for _, c := range []struct {
		name, sql, table string
	}{
		{"a new table", `CREATE TABLE orphans (seq INTEGER PRIMARY KEY REFERENCES record_facts (seq)) STRICT;
			INSERT INTO orphans (seq) VALUES (42);`, "orphans"},
		{"a table of the schema", `INSERT INTO payloads (seq, data) VALUES (42, x'00');`, "payloads"},
	} {
		t.Run("a row naming no row, in "+c.name, func(t *testing.T) {
			h := openAt(t, filepath.Join(t.TempDir(), "seald.db"))
			ctx := t.Context()
			err := h.applyMigrations(ctx, with(c.sql))
			if err == nil || !strings.Contains(err.Error(), c.table+" rowid 42 (to record_facts)") {
				t.Fatalf("the migration of an orphan row in %s: %v", c.table, err)
			}
			t.Log(err)
			for what, query := range map[string]string{
				"its row of schema_migrations": `SELECT count(*) FROM schema_migrations WHERE version = 9999`,
				"its table":                    `SELECT count(*) FROM sqlite_schema WHERE name = 'orphans'`,
				"its payload":                  `SELECT count(*) FROM payloads`,
			} {
				if n, err := h.QueryInt(ctx, query); err != nil || n != 0 {
					t.Errorf("%s: %d left (%v)", what, n, err)
				}
			}
			writerChecksKeys(t, h)
		})
	}

	t.Run("a key broken while it runs", func(t *testing.T) {
		h := openAt(t, filepath.Join(t.TempDir(), "seald.db"))
		ctx := t.Context()
		// With foreign keys on, the INSERT would fail at once.
		if err := h.applyMigrations(ctx, with(`INSERT INTO payloads (seq, data) VALUES (42, x'00');
			DELETE FROM payloads WHERE seq = 42;`)); err != nil {
			t.Fatal(err)
		}
		if n, err := h.QueryInt(ctx, `SELECT count(*) FROM schema_migrations WHERE version = 9999`); err != nil || n != 1 {
			t.Errorf("the migration recorded %d times (%v)", n, err)
		}
		writerChecksKeys(t, h)
	})
}
