package sqlite

import (
	"context"

	"seald.dev/seald/internal/sqlstore"

	"seald.dev/seald"
)

// BulkInsertRecords inserts records (only the records: no payload, no job) in one transaction through one
// prepared statement, to fill a database for benchmarks and imports far faster than CreateRecord's
// transaction per record. Any failure inserts none of them.
func (s *Store) BulkInsertRecords(ctx context.Context, records []*seald.Record) error {
	const op = "sqlite.BulkInsertRecords"
	return s.write(ctx, op, func(ctx context.Context, q *querier) error {
		for _, r := range records {
			vals, err := s.RecordValues(r)
			if err != nil {
				return err
			}
			var seq int64
			if err := q.QueryRow(ctx, sqlstore.InsertRecord, sqlstore.AppendFactValues(nil, vals)...).Scan(&seq); err != nil {
				return err
			}
			if _, err := q.Exec(ctx, sqlstore.InsertState, sqlstore.AppendStateValues(nil, seq, vals)...); err != nil {
				return err
			}
			if err := sqlstore.InsertPaths(ctx, q, seq, r); err != nil {
				return err
			}
		}
		return nil
	})
}
