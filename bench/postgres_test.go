package bench

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"seald.dev/seald/postgres"
)

// The preload's VACUUM ANALYZE reaches every table that holds a record's rows. It named records, which the
// split of a record's row made a view: PostgreSQL only warned, record_states had no statistics, and the
// verification's reads by hash were planned without them.
func TestVacuumAnalyzeReachesTheRecordTables(t *testing.T) {
	server := os.Getenv("SEALD_TEST_POSTGRES_DSN")
	if server == "" {
		t.Skip("SEALD_TEST_POSTGRES_DSN is not set: the PostgreSQL part of the bench is not tested (CI sets it)")
	}
	ctx := t.Context()
	dsn, drop, err := freshDatabase(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	defer drop()
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := vacuumAnalyze(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, table := range []string{"record_facts", "record_states", "record_paths"} {
		var vacuumed, analyzed bool
		if err := conn.QueryRow(ctx, `SELECT last_vacuum IS NOT NULL, last_analyze IS NOT NULL FROM pg_stat_user_tables
			WHERE relname = $1`, table).Scan(&vacuumed, &analyzed); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if !vacuumed || !analyzed {
			t.Errorf("%s: vacuumed %v, analyzed %v after the preload's VACUUM ANALYZE", table, vacuumed, analyzed)
		}
	}
}
