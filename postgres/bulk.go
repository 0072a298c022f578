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
	// The paths of the records that have any, found by reference (COPY returns no seq), a few thousand records
	// per statement.
	var refs []string
	var merkle, disclosure [][]byte
	flush := func() error {
		if len(refs) == 0 {
			return nil
		}
		_, err := s.pool.Exec(ctx, `INSERT INTO record_paths (record_seq, merkle_path, disclosure_path)
			SELECT records.seq, v.m, v.d FROM unnest($1::text[], $2::bytea[], $3::bytea[]) AS v (ref, m, d)
			JOIN records ON records.reference = v.ref`, refs, merkle, disclosure)
		refs, merkle, disclosure = refs[:0], merkle[:0], disclosure[:0]
		return err
	}
	for _, r := range records {
		if !sqlstore.HasPaths(r) {
			continue
		}
		m, d, err := sqlstore.PathBytes(r)
		if err != nil {
			return wrap(op, err)
		}
		refs, merkle, disclosure = append(refs, r.Reference), append(merkle, m), append(disclosure, d)
		if len(refs) == 4096 {
			if err := flush(); err != nil {
				return wrap(op, err)
			}
		}
	}
	return wrap(op, flush())
}
