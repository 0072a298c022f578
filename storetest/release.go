package storetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"seald.dev/seald"
)

// Release is what a database made by the last release (42a61d0) holds in the rows that issue 45's migrations
// move: 0014 (payloads keyed, jobs found, by the record's seq instead of its reference), 0015 (the records'
// Merkle paths into record_paths) and the split of a record's row into record_facts and record_states (0017 on
// SQLite, 0018 on PostgreSQL), read with raw SQL (ReleasePayloads, ReleaseJobs, ReleasePaths, ReleaseRecords)
// before a Store opens, and so migrates, the database.
type Release struct {
	// Records are the records' whole rows (RecordRowColumns), by reference, each value as the driver read it.
	Records map[string][]any
	// Payloads are the payloads kept for store steps not yet run, by their records' references.
	Payloads map[string][]byte
	// Jobs are the jobs, by id.
	Jobs map[int64]ReleaseJob
	// Paths are the Merkle paths of the records placed in a batch, by reference: the JSON texts of the leaf's
	// and of the disclosure leaf's ("" for none).
	Paths map[string][2]string
	// LastJobID is the last job id the release gave (its sequence, not the largest id left): a new job's id
	// must be above it.
	LastJobID int64
}

// ReleaseJob is one job of a Release.
type ReleaseJob struct {
	Kind, Reference string
	Attempts        int
	LastError       string
}

// The queries that read a Release, the same on both stores: reference and data; id, kind, reference,
// attempts and last error.
const (
	ReleasePayloads = `SELECT reference, data FROM payloads`
	ReleaseJobs     = `SELECT id, kind, reference, attempts, last_error FROM jobs`
	ReleasePaths    = `SELECT reference, coalesce(merkle_path, ''), coalesce(disclosure_path, '') FROM records
		WHERE merkle_path IS NOT NULL OR disclosure_path IS NOT NULL`
)

// RecordRowColumns are every column of a record's row: of the table records in the release's schema, and of
// the view records, which joins record_facts and record_states, once migrated. The reference is the second.
var RecordRowColumns = []string{"seq", "reference", "pipeline", "business_id", "project_id", "network", "hash",
	"mime_type", "privacy", "is_email", "is_encrypted", "has_password", "downloadable", "password_hash", "mail", "ovi",
	"created_at", "data_key", "status", "state", "error_type", "error_message", "cid", "encrypted_file", "token_id",
	"batch_id", "leaf", "revoked_on_chain", "is_signed", "signature", "message_id", "updated_at", "erased_at",
	"ipfs_stored_at", "anchor_submitted_at", "anchored_at", "email_sent_at", "completed_at", "failed_at",
	"disclosure", "disclosure_blind"}

// The queries of every record's whole row (RecordRowColumns): ReleaseRecords from the release's records,
// MigratedRecords from the view records once a Store has migrated the database.
var (
	ReleaseRecords  = `SELECT ` + strings.Join(RecordRowColumns, ", ") + ` FROM records`
	MigratedRecords = `SELECT ` + strings.Join(RecordRowColumns, ", ") + ` FROM records`
)

// Rows are the rows of a query, as both database/sql and pgx give them.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// RecordRows reads rows of ReleaseRecords or MigratedRecords into each record's values, by reference, as the
// driver gives them without conversion (each scanned into an any).
func RecordRows(t testing.TB, rows Rows) map[string][]any {
	t.Helper()
	out := map[string][]any{}
	for rows.Next() {
		vals := make([]any, len(RecordRowColumns))
		dest := make([]any, len(vals))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatalf("a record's row: %v", err)
		}
		ref, isText := vals[1].(string)
		if !isText {
			t.Fatalf("a record's reference is %T %v, not text", vals[1], vals[1])
		}
		if _, dup := out[ref]; dup {
			t.Fatalf("two rows of record %s", ref)
		}
		out[ref] = vals
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("records' rows: %v", err)
	}
	return out
}

// CheckReleaseRecords checks that the rows got, read with MigratedRecords from the migrated database, are the
// release's (rel.Records) value by value: the same records, each with the same value, of the same type, in
// every column.
func CheckReleaseRecords(t testing.TB, rel Release, got map[string][]any) {
	t.Helper()
	if len(rel.Records) == 0 {
		t.Fatal("the release's database holds no record: it tests nothing")
	}
	for ref, want := range rel.Records {
		row, found := got[ref]
		if !found {
			t.Errorf("record %s: not in the view records", ref)
			continue
		}
		for i, col := range RecordRowColumns {
			if !sameValue(row[i], want[i]) {
				t.Errorf("record %s, %s: %T %#v, the release's %T %#v", ref, col, row[i], row[i], want[i], want[i])
			}
		}
	}
	for ref := range got {
		if _, found := rel.Records[ref]; !found {
			t.Errorf("record %s: in the view records, not in the release", ref)
		}
	}
}

// sameValue reports whether two values as a driver read them are the same value of the same type: times at
// the same instant (a location is how they print, not what they are), bytes with the same contents.
func sameValue(a, b any) bool {
	switch a := a.(type) {
	case time.Time:
		b, isTime := b.(time.Time)
		return isTime && a.Equal(b)
	case []byte:
		b, isBytes := b.([]byte)
		return isBytes && bytes.Equal(a, b)
	}
	return reflect.DeepEqual(a, b)
}

// CheckRelease checks a Store opened on a database made by the last release, whose rows were rel before it
// opened: each payload is still its record's; each job is still there, claimed with its id, kind, record,
// attempts and last error, with its record and (a store job) its payload read by the claim; a store job
// completed drops its record's payload; and a new job gets an id above the release's last, found by its
// record as RequeueJob looks for it; and each record placed in a batch still has its Merkle paths.
func CheckRelease(t *testing.T, s seald.Store, rel Release) {
	t.Helper()
	ctx := t.Context()
	if len(rel.Payloads) == 0 || len(rel.Jobs) == 0 || len(rel.Paths) == 0 {
		t.Fatalf("the release's database holds %d payloads, %d jobs and %d records with paths: it tests nothing",
			len(rel.Payloads), len(rel.Jobs), len(rel.Paths))
	}
	for ref, want := range rel.Paths {
		r, err := s.Record(ctx, ref)
		ok(t, "Record "+ref, err)
		for i, got := range [][]string{r.MerklePath, r.DisclosurePath} {
			var w []string
			if want[i] != "" {
				if err := json.Unmarshal([]byte(want[i]), &w); err != nil {
					t.Fatalf("the release's path %q of %s: %v", want[i], ref, err)
				}
			}
			equal(t, fmt.Sprintf("%s: path %d of %s", ref, i, "merkle, disclosure"), got, w)
		}
	}
	for ref, want := range rel.Payloads {
		got, err := s.Payload(ctx, ref)
		ok(t, "Payload "+ref, err)
		if !bytes.Equal(got, want) {
			t.Errorf("payload of %s: %d bytes, not the release's %d", ref, len(got), len(want))
		}
	}
	counts := map[string]int{}
	var kinds []string
	for _, j := range rel.Jobs {
		if counts[j.Kind] == 0 {
			kinds = append(kinds, j.Kind)
		}
		counts[j.Kind]++
	}
	got, err := s.CountJobs(ctx)
	ok(t, "CountJobs", err)
	equal(t, "CountJobs", got, counts)

	// Far enough ahead for every retry and every lease the release left.
	later := time.Now().Add(30 * 24 * time.Hour)
	jobs, err := s.ClaimJobs(ctx, kinds, 1000, later, time.Minute)
	ok(t, "ClaimJobs", err)
	if len(jobs) != len(rel.Jobs) {
		t.Errorf("claimed %d jobs, the release left %d", len(jobs), len(rel.Jobs))
	}
	var store *seald.Job
	for _, j := range jobs {
		want, found := rel.Jobs[j.ID]
		if !found {
			t.Errorf("claimed job %d (%s of %s), which the release did not have", j.ID, j.Kind, j.Reference)
			continue
		}
		equal(t, "job", ReleaseJob{j.Kind, j.Reference, j.Attempts, j.LastError}, want)
		if j.Record == nil || j.Record.Reference != want.Reference {
			t.Errorf("job %d: the claim read record %v, want %s", j.ID, j.Record, want.Reference)
		}
		if p, kept := rel.Payloads[want.Reference]; j.Kind == seald.JobStore && !bytes.Equal(j.Payload, p) {
			t.Errorf("store job %d: the claim read a payload of %d bytes, want the release's %d (kept: %v)", j.ID,
				len(j.Payload), len(p), kept)
		}
		if j.Kind == seald.JobStore && store == nil {
			store = j
		}
	}
	if store == nil {
		t.Fatalf("no store job among the release's jobs %v", rel.Jobs)
	}
	ok(t, "CompleteJob of a store job, dropping its payload", s.CompleteJob(ctx, store, nil, true))
	_, err = s.Payload(ctx, store.Reference)
	wantCode(t, "Payload after its store job", err, seald.ENOTFOUND)

	fresh := &seald.Job{Kind: "migration-check", Reference: store.Reference, RunAt: later}
	queued, err := s.RequeueJob(ctx, fresh)
	ok(t, "RequeueJob", err)
	if !queued || fresh.ID <= rel.LastJobID {
		t.Errorf("a new job: queued %v with id %d, want an id above the release's last, %d", queued, fresh.ID, rel.LastJobID)
	}
	queued, err = s.RequeueJob(ctx, &seald.Job{Kind: "migration-check", Reference: store.Reference, RunAt: later})
	ok(t, "RequeueJob again", err)
	if queued {
		t.Errorf("RequeueJob queued a second job of its kind for %s", store.Reference)
	}
}

// ReleaseDumpSQL is pg_dump's plain dump of the release's PostgreSQL schema (postgres/testdata, its README)
// at path, rewritten to load into schema (quoted) instead of seald_release_42a61d0: psql's meta-commands
// (\restrict) and the dump's CREATE SCHEMA are left out.
func ReleaseDumpSQL(t testing.TB, path, schema string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sql strings.Builder
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, `\`) || strings.HasPrefix(line, "CREATE SCHEMA ") {
			continue
		}
		sql.WriteString(strings.ReplaceAll(line, "seald_release_42a61d0.", schema+"."))
	}
	return sql.String()
}

// EqualStrings fails t, naming what, unless got is want.
func EqualStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}
