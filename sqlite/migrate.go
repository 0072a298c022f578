package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"fmt"
	"strings"

	"seald.dev/seald/internal/migration"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// createMigrationsTable creates the bookkeeping table of the migrations applied (sqlstore.Store.Migrate).
const createMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at INTEGER NOT NULL
) STRICT`

// migrate applies the migrations the database lacks.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migration.Load(migrationFiles, "migrations")
	if err != nil {
		return err
	}
	return s.applyMigrations(ctx, ms)
}

// applyMigrations applies those of ms the database lacks, all in one write transaction: BEGIN IMMEDIATE makes
// a second process opening the same file at the same moment wait, then find them applied.
//
// Foreign keys are off while they run. A migration that changes what SQLite's ALTER TABLE cannot (a column
// a foreign key holds, a column's type) makes the table again and drops the old one
// (https://www.sqlite.org/lang_altertable.html#otheralter), and with foreign keys on, dropping a table that
// other tables name fails, or else deletes its rows first. SQLite ignores the pragma inside a transaction,
// so the migrations run on one connection of the writer's, taken for them alone: the pragma is set on it
// before the transaction begins, and set back before the connection returns to the writer, whatever
// happened. Instead of being checked statement by statement, every foreign key of the database is checked
// once the migrations have run, before the commit: a row that names no row fails them all.
func (s *Store) applyMigrations(ctx context.Context, ms []migration.Migration) error {
	const op = "sqlite.migrate"
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return wrap(op, err)
	}
	defer conn.Close()
	defer restoreForeignKeys(ctx, conn)
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return wrap(op, err)
	}

	tx, err := conn.BeginTx(ctx, nil) // BEGIN IMMEDIATE: the writer's DSN sets _txlock
	if err != nil {
		return wrap(op, err)
	}
	defer tx.Rollback() // should a migration panic
	q := &querier{db: tx}
	err = s.migrateTx(ctx, q, ms)
	q.close()
	if err == nil {
		err = tx.Commit()
	} else {
		tx.Rollback()
	}
	return wrap(op, err)
}

// migrateTx applies the migrations of ms that schema_migrations does not list, in q's transaction, then
// checks every foreign key if it applied any.
func (s *Store) migrateTx(ctx context.Context, q *querier, ms []migration.Migration) error {
	ran, err := s.Migrate(ctx, q, ms, createMigrationsTable)
	if err != nil || len(ran) == 0 {
		// With none run, nothing ran with the keys off; checking them all would read every table that names
		// another at each start.
		return err
	}
	return checkForeignKeys(ctx, q, ran)
}

// checkForeignKeys returns an error naming the rows (their table, rowid and parent table) whose foreign keys
// name no row, if there are any, once the migrations pending have run.
func checkForeignKeys(ctx context.Context, q *querier, pending []string) error {
	rows, err := q.db.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return err
	}
	defer rows.Close()
	const shown = 10
	var broken []string
	n := 0
	for rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fkid int64
		if err := rows.Scan(&table, &rowid, &parent, &fkid); err != nil {
			return err
		}
		if n++; n <= shown {
			row := "a row"
			if rowid.Valid {
				row = fmt.Sprintf("rowid %d", rowid.Int64)
			}
			broken = append(broken, fmt.Sprintf("%s %s (to %s)", table, row, parent))
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if n > shown {
		broken = append(broken, fmt.Sprintf("%d more", n-shown))
	}
	return fmt.Errorf("applying %s: rows whose foreign key names no row: %s; no migration applied",
		strings.Join(pending, ", "), strings.Join(broken, ", "))
}

// restoreForeignKeys turns foreign keys on again on conn, a connection of the writer's, before it returns to
// the writer. A connection on which they cannot be turned on (its transaction did not end, say) is
// discarded: the writer then opens a new one, which its DSN gives foreign keys.
func restoreForeignKeys(ctx context.Context, conn *sql.Conn) {
	ctx = context.WithoutCancel(ctx) // a cancelled migration still gives the connection back as it found it
	var on int
	_, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = ON`)
	if err == nil {
		err = conn.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&on)
	}
	if err != nil || on != 1 {
		conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}
