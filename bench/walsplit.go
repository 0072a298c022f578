package bench

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// WALShare is one table's or index's part of the WAL bytes a writes run appended, per COMPLETED record. On
// PostgreSQL: the WAL records that named it (their first block's relation) and their bytes, full-page images
// included and also counted apart. On SQLite, whose log holds whole pages: the frames of its pages.
type WALShare struct {
	Relation string  `json:"relation"`
	Records  float64 `json:"wal_records_per_record"`
	Bytes    float64 `json:"wal_bytes_per_record"`
	FPIBytes float64 `json:"full_page_image_bytes_per_record"`
}

// walSplitter attributes the WAL of a writes run to the tables and indexes that wrote it, with the server's
// pg_walinspect (PostgreSQL 15 and later): the total alone says how much, this says which part of the design
// to change. A temporary physical replication slot keeps the run's WAL segments from being recycled by a
// checkpoint until they are read; it goes with the connection that made it.
type walSplitter struct {
	c *pgx.Conn
}

// newWALSplitter prepares c's database and server; an error says why the run's WAL cannot be split (no
// pg_walinspect, or a role that may not create it or a slot), and the run goes on without it.
func newWALSplitter(ctx context.Context, c *pgx.Conn) (*walSplitter, error) {
	if _, err := c.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_walinspect`); err != nil {
		return nil, fmt.Errorf("pg_walinspect: %w", err)
	}
	// The slot reserves the WAL from its creation on; the run starts after it.
	if _, err := c.Exec(ctx, `SELECT pg_create_physical_replication_slot('sealbench_writes_'||pg_backend_pid(), true, true)`); err != nil {
		return nil, fmt.Errorf("a slot to keep the run's WAL: %w", err)
	}
	return &walSplitter{c: c}, nil
}

// split reads the WAL from byte position from to to (or to what the server has flushed, which is all of
// it but for the last few records of other sessions: what it has not flushed cannot be read) and sums it by relation of this database (tables and
// indexes by name; the records naming another database's relation, or none, such as commits, apart), per
// COMPLETED record, largest first.
func (s *walSplitter) split(ctx context.Context, from, to int64, completed int) ([]WALShare, error) {
	rows, err := s.c.Query(ctx, `WITH w AS (
			SELECT record_length, fpi_length,
				substring(block_ref FROM 'rel [0-9]+/([0-9]+)/[0-9]+') AS db,
				substring(block_ref FROM 'rel [0-9]+/[0-9]+/([0-9]+)') AS rel
			FROM pg_get_wal_records_info('0/0'::pg_lsn + $1::numeric,
				least('0/0'::pg_lsn + $2::numeric, pg_current_wal_flush_lsn())))
		SELECT CASE
				WHEN c.relname IS NOT NULL THEN c.relname
				WHEN w.rel IS NULL THEN '(no relation: commits, checkpoints)'
				ELSE '(other databases, system relations)' END AS relation,
			count(*), sum(record_length), sum(fpi_length)
		FROM w LEFT JOIN pg_class c
			ON w.db = (SELECT oid::text FROM pg_database WHERE datname = current_database())
			AND c.relfilenode::text = w.rel
		GROUP BY 1 ORDER BY 3 DESC, 1`, from, to)
	if err != nil {
		return nil, err
	}
	per := func(v int64) float64 { return float64(v) / float64(max(completed, 1)) }
	var out []WALShare
	for rows.Next() {
		var name string
		var n, bytes, fpi int64
		if err := rows.Scan(&name, &n, &bytes, &fpi); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, WALShare{Relation: name, Records: per(n), Bytes: per(bytes), FPIBytes: per(fpi)})
	}
	return out, rows.Err()
}

// sqliteSplit is the split of a SQLite run's WAL (sqlite.Store.MeterWALSplit: frames by B-tree, and a frame's
// bytes), per COMPLETED record, largest first.
func sqliteSplit(frames map[string]int64, frameBytes int64, completed int) []WALShare {
	n := float64(max(completed, 1))
	out := make([]WALShare, 0, len(frames))
	for name, f := range frames {
		out = append(out, WALShare{Relation: name, Records: float64(f) / n, Bytes: float64(f*frameBytes) / n})
	}
	slices.SortFunc(out, func(a, b WALShare) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), strings.Compare(a.Relation, b.Relation))
	})
	return out
}

// walSplitMarkdown writes where a run's WAL went: the tables and indexes of at least 1% of its bytes, then the
// rest in one row.
func walSplitMarkdown(b *strings.Builder, w *WritesRun) {
	if len(w.WALSplit) == 0 && w.WALSplitWhy == "" {
		return
	}
	pg := w.Store == "postgres"
	how := "frames of each B-tree's pages in seald.db-wal, the pages placed by SQLite's dbstat at the end"
	if pg {
		how = "pg_walinspect, each WAL record counted under the relation of its first block"
	}
	fmt.Fprintf(b, "\nWhere the WAL bytes of %s went, per COMPLETED record (%s):", w.label(), how)
	if w.WALSplitWhy != "" {
		fmt.Fprintf(b, " not measured: %s.\n", w.WALSplitWhy)
		return
	}
	var total float64
	for _, s := range w.WALSplit {
		total += s.Bytes
	}
	if pg {
		b.WriteString("\n\n| table or index | WAL records | WAL bytes | of which full-page images | share |\n|---|---|---|---|---|\n")
	} else {
		b.WriteString("\n\n| table or index | WAL frames (pages) | WAL bytes | share |\n|---|---|---|---|\n")
	}
	row := func(name string, s WALShare) {
		if pg {
			fmt.Fprintf(b, "| %s | %.2f | %.0f | %.0f | %.1f%% |\n", name, s.Records, s.Bytes, s.FPIBytes, 100*s.Bytes/total)
		} else {
			fmt.Fprintf(b, "| %s | %.2f | %.0f | %.1f%% |\n", name, s.Records, s.Bytes, 100*s.Bytes/total)
		}
	}
	var rest WALShare
	restN := 0
	for _, s := range w.WALSplit {
		if total > 0 && s.Bytes/total < 0.01 {
			rest.Records += s.Records
			rest.Bytes += s.Bytes
			rest.FPIBytes += s.FPIBytes
			restN++
			continue
		}
		row(s.Relation, s)
	}
	if restN > 0 {
		row(fmt.Sprintf("%d others", restN), rest)
	}
}
