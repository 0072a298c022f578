package bench

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"seald.dev/seald"
	"seald.dev/seald/internal/sqlstore"
	"seald.dev/seald/jcs"
	"seald.dev/seald/proof"
)

// SectionWrites measures the design, not only its time (issue 45): on each store, a fixed number of records
// sealed at a steady rate and followed to COMPLETED, with what the store did for them: statements, rows
// inserted, updated and deleted, and bytes written to the write-ahead log, each per COMPLETED record, beside
// the CPU per record; and the selective-disclosure payload's cost at sealing, apart.
const SectionWrites = "writes"

// WritesRun is one store's row of the writes section.
type WritesRun struct {
	Store       string  `json:"store"`
	Records     int     `json:"records"`
	OfferedRate float64 `json:"offered_per_second"`
	// History is how many completed records the store held before the run (Config.WritesHistory): 0 for the
	// run on a new store, the one this baseline was measured with.
	History   int     `json:"history_records,omitempty"`
	Completed int     `json:"completed"`
	Seconds   float64 `json:"seconds"`
	// Per COMPLETED record, from the first submission until the last record is COMPLETED (the pipeline's
	// idle polling in that time included).
	Statements float64 `json:"statements_per_record"`
	Inserted   float64 `json:"rows_inserted_per_record"`
	Updated    float64 `json:"rows_updated_per_record"`
	Deleted    float64 `json:"rows_deleted_per_record"`
	WALBytes   float64 `json:"wal_bytes_per_record"`
	CPUMs      float64 `json:"cpu_ms_per_record"`
	// RowsFrom and WALFrom say where the rows and the WAL bytes come from on this store.
	RowsFrom string `json:"rows_from"`
	WALFrom  string `json:"wal_from"`
	// BackgroundWAL is, on PostgreSQL, the server's WAL bytes per second over an idle second before the run:
	// the WAL position is the whole server's, so other databases' writes (tests on a shared machine) land in
	// WALBytes too.
	BackgroundWAL float64 `json:"background_wal_bytes_per_second,omitempty"`
	// WALSplit is where the WAL bytes went, by table and index (walsplit.go), or WALSplitWhy why they could
	// not be split.
	WALSplit    []WALShare `json:"wal_split,omitempty"`
	WALSplitWhy string     `json:"wal_split_why,omitempty"`
}

// SDCost is the selective-disclosure payload's cost, measured apart on the bench's own record: the
// commitment (payload built and hashed, proof.SDCommitment) in CPU time, and the payload's size. Acceptance
// paid it until issue 45; the store step pays it since.
type SDCost struct {
	Micros       float64 `json:"commitment_us_per_record"`
	PayloadBytes int     `json:"payload_bytes"`
	DataBytes    int     `json:"canonical_data_bytes"`
}

func writesRecords(cfg Config) int {
	if cfg.WritesRecords > 0 {
		return cfg.WritesRecords
	}
	return 3000
}

func runWrites(ctx context.Context, cfg Config, open Opener, rep *Report) ([]*WritesRun, *SDCost, error) {
	sd, err := sdCost()
	if err != nil {
		return nil, nil, err
	}
	var out []*WritesRun
	for _, st := range stores(ctx, cfg, rep) {
		runs := []int{0}
		if cfg.WritesHistory > 0 {
			runs = append(runs, cfg.WritesHistory)
		}
		for _, history := range runs {
			if history > 0 && st.database != "" {
				// A database of its own, as the first run had.
				dsn, drop, err := freshDatabase(ctx, cfg.Postgres)
				if err != nil {
					return out, sd, fmt.Errorf("%s: %w", st.name, err)
				}
				st = storeRun{name: st.name, database: dsn, drop: drop}
			}
			w, err := writesOn(ctx, cfg, open, st, history)
			st.drop()
			if w != nil {
				out = append(out, w)
			}
			if err != nil {
				return out, sd, fmt.Errorf("%s: %w", st.name, err)
			}
			fmt.Fprintf(cfg.Log, "bench: writes: %s: %.1f statements, %.1f/%.1f/%.1f rows ins/upd/del, %.0f WAL bytes, "+
				"%.3f CPU ms per record\n", w.label(), w.Statements, w.Inserted, w.Updated, w.Deleted, w.WALBytes, w.CPUMs)
		}
	}
	return out, sd, nil
}

// historyTokens is added to the token ids of the records a history run preloads, so that they never meet
// those the run's own chain mints from 1.
const historyTokens = 1 << 40

// writesOn seals cfg's records on one store at cfg.E2ERate and measures until they are all COMPLETED. With
// history > 0 the store first gets that many completed records through its bulk path, with random
// references (preloadReference's ascending ones would keep the reference index's new keys apart from them).
func writesOn(ctx context.Context, cfg Config, open Opener, st storeRun, history int) (*WritesRun, error) {
	sys, closeSys, err := openFresh(ctx, open, st.database, true)
	if err != nil {
		return nil, err
	}
	closed := false
	defer func() {
		if !closed {
			closeSys()
		}
	}()
	if history > 0 {
		t0 := time.Now()
		if _, _, err := preload(ctx, sys, history, func(i int, at time.Time) *seald.Record {
			r := benchRecord(sys, i, seald.NewReference(seald.PrefixAuthentication), at)
			r.TokenID += historyTokens
			return r
		}, cfg.Log); err != nil {
			return nil, fmt.Errorf("preload: %w", err)
		}
		if st.database != "" {
			if err := vacuumAnalyze(ctx, st.database); err != nil {
				return nil, err
			}
		}
		fmt.Fprintf(cfg.Log, "bench: writes: %s: %d records preloaded in %.1fs\n", st.name, history, time.Since(t0).Seconds())
	}
	hc := newClient(64)
	defer hc.CloseIdleConnections()
	api := sys.client(sys.URL, hc)
	// One record first, so that the tenant's caches and the statements are warm.
	if _, err := sealOnce(ctx, api, -1); err != nil {
		return nil, err
	}
	n, rate := writesRecords(cfg), cfg.E2ERate
	w := &WritesRun{Store: st.name, Records: n, OfferedRate: rate, History: history}

	var pg *pgx.Conn
	var walBefore, bgWAL int64
	var tupBefore [3]int64
	var stopWAL func() (int64, error)
	var splitter *walSplitter
	if st.database != "" {
		if pg, err = pgx.Connect(ctx, st.database); err != nil {
			return nil, err
		}
		defer pg.Close(context.Background())
		if splitter, err = newWALSplitter(ctx, pg); err != nil {
			w.WALSplitWhy = err.Error()
		}
		a, err := walLSN(ctx, pg)
		if err != nil {
			return nil, err
		}
		time.Sleep(time.Second)
		if walBefore, err = walLSN(ctx, pg); err != nil {
			return nil, err
		}
		bgWAL = walBefore - a
		if tupBefore, err = tuples(ctx, pg); err != nil {
			return nil, err
		}
		w.RowsFrom, w.WALFrom = "pg_stat_user_tables (n_tup_ins/upd/del)", "pg_current_wal_insert_lsn() (the whole server)"
	} else {
		m, ok := sys.Store.(interface {
			MeterWALSplit() (func() (map[string]int64, int64, error), error)
		})
		if !ok {
			return nil, fmt.Errorf("the SQLite store has no WAL meter")
		}
		stopSplit, err := m.MeterWALSplit()
		if err != nil {
			return nil, err
		}
		stopWAL = func() (int64, error) {
			frames, frameBytes, err := stopSplit()
			if err != nil {
				return 0, err
			}
			w.WALSplit = sqliteSplit(frames, frameBytes, w.Completed)
			var total int64
			for _, n := range frames {
				total += n
			}
			return total * frameBytes, nil
		}
		w.RowsFrom, w.WALFrom = "the stores' statement counter (internal/sqlstore)", "frames appended to seald.db-wal (sqlite.Store.MeterWAL)"
	}
	stopCount := sqlstore.StartCounting()
	var cpu cpuMeter
	cpu.start()
	t0 := time.Now()

	interval := time.Duration(float64(time.Second) / rate)
	var next atomic.Int64
	var mu sync.Mutex
	refs := make([]string, 0, n)
	var firstErr error
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) || ctx.Err() != nil {
					return
				}
				time.Sleep(time.Until(t0.Add(time.Duration(i) * interval)))
				ref, err := sealOnce(ctx, api, i)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				} else if err == nil {
					refs = append(refs, ref)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		stopCount()
		return w, firstErr
	}
	// Records complete nearly in acceptance order: follow the completed prefix.
	deadline := time.Now().Add(cfg.E2EDrain + time.Minute)
	for cursor := 0; cursor < len(refs); {
		r, err := sys.Store.Record(ctx, refs[cursor])
		if err != nil {
			stopCount()
			return w, err
		}
		if r.State == seald.StateCompleted || r.State == seald.StateFailed {
			if r.State == seald.StateCompleted {
				w.Completed++
			}
			cursor++
			continue
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			stopCount()
			return w, fmt.Errorf("record %s still %s after the drain", r.Reference, r.State)
		}
		time.Sleep(50 * time.Millisecond)
	}
	w.Seconds = time.Since(t0).Seconds()
	counts := stopCount()
	cpuSec := cpu.seconds()
	var walBytes int64
	if stopWAL != nil {
		if walBytes, err = stopWAL(); err != nil {
			return w, err
		}
	} else {
		after, err := walLSN(ctx, pg)
		if err != nil {
			return w, err
		}
		walBytes = after - walBefore
		if splitter != nil {
			if w.WALSplit, err = splitter.split(ctx, walBefore, after, w.Completed); err != nil {
				w.WALSplitWhy = err.Error()
			}
		}
	}
	per := func(v int64) float64 { return float64(v) / float64(max(w.Completed, 1)) }
	w.Statements, w.WALBytes, w.CPUMs = per(counts.Statements), per(walBytes), 1000*cpuSec/float64(max(w.Completed, 1))
	w.Inserted, w.Updated, w.Deleted = per(counts.Inserted), per(counts.Updated), per(counts.Deleted)
	if pg != nil {
		// The server's counters of a table come from each backend's statistics, which it reports when it ends
		// (or when idle, within a second or so): close the system so that its connections report them.
		closeSys()
		closed = true
		time.Sleep(1500 * time.Millisecond)
		after, err := tuples(ctx, pg)
		if err != nil {
			return w, err
		}
		w.Inserted, w.Updated, w.Deleted = per(after[0]-tupBefore[0]), per(after[1]-tupBefore[1]), per(after[2]-tupBefore[2])
		w.BackgroundWAL = float64(bgWAL)
	}
	return w, nil
}

// walLSN is the server's WAL insert position, in bytes.
func walLSN(ctx context.Context, c *pgx.Conn) (int64, error) {
	var n float64
	err := c.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')`).Scan(&n)
	return int64(n), err
}

// tuples sums the rows inserted, updated and deleted in the database's tables, as its statistics have them.
func tuples(ctx context.Context, c *pgx.Conn) ([3]int64, error) {
	var t [3]int64
	// A new snapshot of the statistics, not the one this session read before.
	if _, err := c.Exec(ctx, `SELECT pg_stat_clear_snapshot()`); err != nil {
		return t, err
	}
	err := c.QueryRow(ctx, `SELECT coalesce(sum(n_tup_ins),0)::bigint, coalesce(sum(n_tup_upd),0)::bigint, `+
		`coalesce(sum(n_tup_del),0)::bigint FROM pg_stat_user_tables`).Scan(&t[0], &t[1], &t[2])
	return t, err
}

// sdCost times proof.SDCommitment on the canonical data of the bench's record, with a secret of the size
// the service derives.
func sdCost() (*SDCost, error) {
	body := string(sealBody(1))
	data := body[len(`{"data":`):strings.Index(body, `,"to":`)]
	canon, err := jcs.Canonicalize([]byte(data))
	if err != nil {
		return nil, err
	}
	secret := sha256.Sum256([]byte("bench"))
	sd, err := proof.BuildSD(canon, secret[:])
	if err != nil {
		return nil, err
	}
	const rounds = 2000
	start := cpuTime() // the process's CPU, nothing else running in it yet: the machine's other load is left out
	for range rounds {
		if _, err := proof.SDCommitment(canon, secret[:]); err != nil {
			return nil, err
		}
	}
	return &SDCost{Micros: float64((cpuTime() - start).Microseconds()) / rounds, PayloadBytes: len(sd.Payload),
		DataBytes: len(canon)}, nil
}

func writesMarkdown(b *strings.Builder, ws []*WritesRun, sd *SDCost) {
	if len(ws) == 0 && sd == nil {
		return
	}
	b.WriteString("\n## Writes per COMPLETED record (the design, issue 45)\n\n")
	if len(ws) > 0 {
		b.WriteString("| store | records at offered/s | statements | rows inserted | rows updated | rows deleted | WAL bytes | CPU ms | rows from | WAL from |\n|---|---|---|---|---|---|---|---|---|---|\n")
		for _, w := range ws {
			wal := fmt.Sprintf("%.0f", w.WALBytes)
			if w.BackgroundWAL > 0 {
				wal += fmt.Sprintf(" (server idle: %.0f B/s)", w.BackgroundWAL)
			}
			fmt.Fprintf(b, "| %s | %d of %d at %.0f/s in %.1f s | %.1f | %.2f | %.2f | %.2f | %s | %.3f | %s | %s |\n",
				w.label(), w.Completed, w.Records, w.OfferedRate, w.Seconds, w.Statements, w.Inserted, w.Updated,
				w.Deleted, wal, w.CPUMs, w.RowsFrom, w.WALFrom)
		}
		for _, w := range ws {
			walSplitMarkdown(b, w)
		}
	}
	if sd != nil {
		cpu := ""
		if len(ws) > 0 && ws[0].CPUMs > 0 {
			cpu = fmt.Sprintf(", %.1f%% of the CPU per record on %s", 100*sd.Micros/1000/ws[0].CPUMs, ws[0].Store)
		}
		fmt.Fprintf(b, "\nSelective disclosure: the commitment of the bench's record (%d bytes of canonical data, "+
			"an SD payload of %d bytes) takes %.1f CPU µs%s. Since issue 45 the store step computes it, off the "+
			"request path; before, acceptance did.\n", sd.DataBytes, sd.PayloadBytes, sd.Micros, cpu)
	}
}

// label names the store of a run, and the records it held before, if any.
func (w *WritesRun) label() string {
	if w.History == 0 {
		return w.Store
	}
	return fmt.Sprintf("%s holding %d records", w.Store, w.History)
}
