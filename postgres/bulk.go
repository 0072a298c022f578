package postgres

import (
	"context"
	"fmt"

	"seald.dev/seald/internal/sqlstore"

	"github.com/jackc/pgx/v5"

	"seald.dev/seald"
)

// BulkInsertRecords inserts records (only the records: no payload, no job) with COPY, to fill a database for
// benchmarks and imports far faster than CreateRecord's transaction per record. One transaction copies the
// record_facts rows, reads back their seqs (COPY returns none), copies their record_states rows and keeps the
// Merkle paths of those that have any: any failure inserts none of them.
func (s *Store) BulkInsertRecords(ctx context.Context, records []*seald.Record) error {
	const op = "postgres.BulkInsertRecords"
	facts := make([][]any, len(records))
	vals := make(map[string][]any, len(records))
	for i, r := range records {
		args, err := s.RecordValues(r)
		if err != nil {
			return wrap(op, err)
		}
		facts[i], vals[r.Reference] = sqlstore.AppendFactValues(nil, args), args
	}
	return wrap(op, pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"record_facts"}, sqlstore.FactInsertColumns, pgx.CopyFromRows(facts)); err != nil {
			return err
		}
		seqs := make(map[string]int64, len(records))
		for at := 0; at < len(records); at += 4096 {
			refs := make([]string, 0, 4096)
			for _, r := range records[at:min(at+4096, len(records))] {
				refs = append(refs, r.Reference)
			}
			rows, err := tx.Query(ctx, `SELECT reference, seq FROM record_facts WHERE reference = ANY($1)`, refs)
			if err != nil {
				return err
			}
			var ref string
			var seq int64
			if _, err := pgx.ForEachRow(rows, []any{&ref, &seq}, func() error { seqs[ref] = seq; return nil }); err != nil {
				return err
			}
		}
		// Bulk rows are whole records, as large as the steps make them: the room record_states keeps on its pages
		// for a row to grow in (its fillfactor, migration 0018) would stay empty. The copy packs its pages, and
		// the table gets its own setting back, in this transaction, for the rows the pipeline inserts.
		restore, err := packStates(ctx, tx)
		if err != nil {
			return err
		}
		states := make([][]any, len(records))
		for i, r := range records {
			states[i] = sqlstore.AppendStateValues(nil, seqs[r.Reference], vals[r.Reference])
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"record_states"}, sqlstore.StateInsertColumns, pgx.CopyFromRows(states)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, restore); err != nil {
			return err
		}
		// The paths of the records that have any, a few thousand records per statement.
		var pseqs []int64
		var merkle, disclosure [][]byte
		flush := func() error {
			if len(pseqs) == 0 {
				return nil
			}
			_, err := tx.Exec(ctx, `INSERT INTO record_paths (record_seq, merkle_path, disclosure_path)
				SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::bytea[])`, pseqs, merkle, disclosure)
			pseqs, merkle, disclosure = pseqs[:0], merkle[:0], disclosure[:0]
			return err
		}
		for _, r := range records {
			if !sqlstore.HasPaths(r) {
				continue
			}
			m, d, err := sqlstore.PathBytes(r)
			if err != nil {
				return err
			}
			pseqs, merkle, disclosure = append(pseqs, seqs[r.Reference]), append(merkle, m), append(disclosure, d)
			if len(pseqs) == 4096 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return flush()
	}))
}

// packStates makes the rows inserted next by tx into record_states fill its pages whole, and returns the
// statement that gives the table its setting back. The setting is a storage parameter of the table, changed
// under a lock that lets reads and writes go on (SHARE UPDATE EXCLUSIVE), and no other session sees the
// change, since tx restores it before it commits.
func packStates(ctx context.Context, tx pgx.Tx) (restore string, err error) {
	var fillfactor *int
	if err := tx.QueryRow(ctx, `SELECT (SELECT split_part(o, '=', 2)::int FROM unnest(reloptions) AS o
		WHERE o LIKE 'fillfactor=%') FROM pg_class WHERE oid = 'record_states'::regclass`).Scan(&fillfactor); err != nil {
		return "", err
	}
	if _, err := tx.Exec(ctx, `ALTER TABLE record_states SET (fillfactor = 100)`); err != nil {
		return "", err
	}
	if fillfactor == nil {
		return `ALTER TABLE record_states RESET (fillfactor)`, nil
	}
	return fmt.Sprintf(`ALTER TABLE record_states SET (fillfactor = %d)`, *fillfactor), nil
}
