package postgres

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"seald.dev/seald/storetest"
)

// BenchmarkCreateRecordBacklog reports the WAL bytes a create writes, from 64 writers with group commit,
// while 50,000 records wait in the pipeline with their payloads and store jobs (issue 45, item 3): what a
// random key costs there is a page of its own per record (a full-page image after each checkpoint), where a
// sequential one shares the rightmost page. The WAL is the whole server's (pg_current_wal_insert_lsn), so
// other clients of the server count too.
func BenchmarkCreateRecordBacklog(b *testing.B) {
	dsn := freshSchema(b)
	s := openDSN(b, dsn)
	storetest.BenchCreateBacklog(b, s, 50000, 64, func() (func() (int64, error), error) {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return nil, err
		}
		lsn := func() (n int64, err error) {
			err = conn.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint`).Scan(&n)
			return n, err
		}
		start, err := lsn()
		if err != nil {
			conn.Close(ctx)
			return nil, err
		}
		return func() (int64, error) {
			defer conn.Close(ctx)
			end, err := lsn()
			return end - start, err
		}, nil
	})
}
