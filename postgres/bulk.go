package postgres

import (
	"context"

	"seald.dev/seald/internal/sqlstore"

	"github.com/jackc/pgx/v5"

	"seald.dev/seald"
)

// BulkInsertRecords inserts records (only the records: no payload, no job) with one COPY, to fill a
// database for benchmarks and imports far faster than CreateRecord's transaction per record. COPY is one
// statement (and the Merkle paths of the records that have any, one more transaction): a failed COPY inserts
// none of them.
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
	if _, err := s.pool.CopyFrom(ctx, pgx.Identifier{"records"}, sqlstore.RecordColumns, pgx.CopyFromRows(rows)); err != nil {
		return wrap(op, err)
	}
	// The paths, of the records that have any, by reference (the COPY gave their seqs).
	return wrap(op, s.E.Write(ctx, op, func(ctx context.Context, q sqlstore.Querier) error {
		for _, r := range records {
			if sqlstore.HasPaths(r) {
				if err := s.InsertPaths(ctx, q, r); err != nil {
					return err
				}
			}
		}
		return nil
	}))
}
