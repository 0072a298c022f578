package postgres

import (
	"context"

	"seald.dev/seald/internal/sqlstore"

	"github.com/jackc/pgx/v5"

	"seald.dev/seald"
)

// BulkInsertRecords inserts records (only the records: no payload, no job) with one COPY, to fill a
// database for benchmarks and imports far faster than CreateRecord's transaction per record. COPY is one
// statement: any failure inserts none of them.
func (s *Store) BulkInsertRecords(ctx context.Context, records []*seald.Record) error {
	const op = "postgres.BulkInsertRecords"
	rows := make([][]any, len(records))
	for i, r := range records {
		args, err := s.RecordValues(r)
		if err != nil {
			return wrap(op, err)
		}
		rows[i] = args
	}
	_, err := s.pool.CopyFrom(ctx, pgx.Identifier{"records"}, sqlstore.RecordColumns, pgx.CopyFromRows(rows))
	return wrap(op, err)
}
