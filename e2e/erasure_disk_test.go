package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// secrets are byte strings that open, or are, an erased record's data, by name.
type secrets map[string][]byte

// leftOnDisk reads every file under dir as raw bytes and lists where any secret is found.
func leftOnDisk(t *testing.T, dir string, s secrets) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // deleted meanwhile by the running service
		}
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		for name, v := range s {
			if bytes.Contains(b, v) {
				found = append(found, rel+": "+name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(found)
	return found
}

// windows are three 48-byte pieces (start, middle, end) of b, each a secret of its own, so that a copy cut
// across pages is found in part.
func windows(name string, b []byte, s secrets) {
	for i, at := range []int{0, len(b)/2 - 24, len(b) - 48} {
		s[name+" ["+string(rune('a'+i))+"]"] = b[at : at+48]
	}
}

// storedSecrets reads a record's wrapped data key and password hash from the SQLite database, on a
// connection of its own, closed on return (an open reader would hold the log's checkpoint back).
func storedSecrets(t *testing.T, dataDir, ref string) (key, hash string) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dataDir, "seald.db")+"?_pragma=query_only(1)&_busy_timeout=15000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`SELECT data_key, password_hash FROM records WHERE reference = ?`, ref).Scan(&key, &hash); err != nil {
		t.Fatal(err)
	}
	return key, hash
}

// eraseJobsLeft counts the record's erase jobs not done yet.
func eraseJobsLeft(t *testing.T, dataDir, ref string) int {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dataDir, "seald.db")+"?_pragma=query_only(1)&_busy_timeout=15000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM jobs WHERE reference = ? AND kind = 'erase'`, ref).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// erasureStore reads what the test needs from serve's store, whichever it is.
type erasureStore struct {
	// secrets returns a record's wrapped data key and password hash.
	secrets func(ref string) (key, hash string)
	// eraseJobsLeft counts the record's erase jobs not done yet.
	eraseJobsLeft func(ref string) int
}

// erased is a record sealed with a password and marked e-mail, erased, beside a record that stays.
type erased struct {
	ref, keptRef string
	s            secrets // what opens or is the erased record's data
}

// sealAndErase seals the two records, waits for COMPLETED, checks that the data dir holds the erased one's
// secrets before the erasure (the search can see them), erases it, and waits for its erase job.
func sealAndErase(t *testing.T, in *instance, st erasureStore) *erased {
	t.Helper()
	kept := in.post(authPath, map[string]any{"data": map[string]any{"name": "ZQXKEPTDATA"}, "to": "kept@example.com",
		"subject": "ZQXKEPTSUBJECT", "body": "ZQXKEPTBODY"})
	if kept.Status != 201 {
		t.Fatalf("seal: %d %s", kept.Status, kept.Raw)
	}
	e := &erased{keptRef: str(kept.Body, "data.reference")}
	r := in.post(authPath, map[string]any{"data": map[string]any{"patient": "ZQXMARKDATA Jane Roe"}, "password": "s3cret-pw",
		"to": "zqxmarkto@example.com", "subject": "ZQXMARKSUBJECT", "body": "ZQXMARKBODY"})
	if r.Status != 201 {
		t.Fatalf("seal: %d %s", r.Status, r.Raw)
	}
	e.ref = str(r.Body, "data.reference")
	cid := str(in.waitState(e.ref, "COMPLETED", 90*time.Second), "cid")
	in.waitState(e.keptRef, "COMPLETED", 90*time.Second)

	key, hash := st.secrets(e.ref)
	code, envelope := fetch(t, in.URL+"/ipfs/"+cid)
	if code != 200 || len(envelope) < 48 || key == "" || !strings.HasPrefix(hash, "$argon2id$") {
		t.Fatalf("before the erasure: envelope %d (%d bytes), key %q, hash %q", code, len(envelope), key, hash)
	}
	e.s = secrets{"wrapped data key": []byte(key), "plaintext": []byte("ZQXMARKDATA"), "subject": []byte("ZQXMARKSUBJECT"),
		"body": []byte("ZQXMARKBODY"), "recipient": []byte("zqxmarkto@example.com")}
	e.s["password hash"] = []byte(hash[strings.LastIndexByte(hash, '$')+1:])
	windows("envelope", envelope, e.s)
	if found := leftOnDisk(t, in.DataDir, e.s); len(found) == 0 {
		t.Fatal("no file holds any secret before the erasure: the search cannot see them")
	}

	if r := in.post("/authentication/erase", map[string]any{"reference": e.ref, "reason": "the holder asked"}); r.Status != 200 {
		t.Fatalf("erase: %d %s", r.Status, r.Raw)
	}
	deadline := time.Now().Add(60 * time.Second)
	for st.eraseJobsLeft(e.ref) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the erase job has not finished\n%s", in.logText())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return e
}

// checkKept checks that the other record still downloads.
func (e *erased) checkKept(t *testing.T, in *instance) {
	t.Helper()
	if dl := in.get("/svc-data/data/download?reference=" + e.keptRef); dl.Status != 200 || !strings.Contains(string(dl.Raw), "ZQXKEPTDATA") {
		t.Errorf("download of the other record: %d %s", dl.Status, dl.Raw)
	}
}

// checkOutbox checks, serve stopped, that the outbox keeps the other record's message whole and not the
// erased one's, and that sent.log says a message of the erased record was sent and erased.
func (e *erased) checkOutbox(t *testing.T, dir string) {
	t.Helper()
	var refs []string
	for _, m := range outboxMessages(t, dir) {
		refs = append(refs, m.Reference)
		if m.Reference == e.keptRef && !bytes.Contains(m.Raw, []byte("ZQXKEPTSUBJECT")) {
			t.Errorf("the other record's message lost its subject:\n%s", m.Raw)
		}
	}
	if !slices.Contains(refs, e.keptRef) || slices.Contains(refs, e.ref) {
		t.Errorf("the outbox holds messages of %v, want %s's and not %s's", refs, e.keptRef, e.ref)
	}
	sent := readFile(t, filepath.Join(dir, "outbox", "sent.log"))
	if !strings.Contains(sent, " "+e.ref+" ") || !strings.Contains(sent, " erased ") {
		t.Errorf("sent.log does not say a message of %s was sent and erased:\n%s", e.ref, sent)
	}
}

// TestErasureLeavesNothingOnDisk is issue 30's test on the embedded defaults: a record sealed with a password,
// a subject and a body that carry markers is erased, and then, while serve runs (once the erase job is
// done) and after it stops, no file under the data dir holds its wrapped data key, its envelope, its
// password hash, its plaintext or the markers of its e-mail. A record sealed beside it still downloads and
// its e-mail is still in the outbox.
func TestErasureLeavesNothingOnDisk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := startServe(t, dir, nil)
	e := sealAndErase(t, in, erasureStore{
		secrets:       func(ref string) (string, string) { return storedSecrets(t, dir, ref) },
		eraseJobsLeft: func(ref string) int { return eraseJobsLeft(t, dir, ref) },
	})
	e.checkDataDir(t, in, dir)
}

// TestErasureLeavesNothingOnDiskPostgres is the same test with serve on PostgreSQL (a schema of its own on the
// test server): after the erase job and the `VACUUM (FULL) record_facts, payloads` docs/privacy.md tells the
// operator to run, neither the table files of record_facts and payloads (TOAST included, read as raw bytes from
// the server's data directory) nor any file of serve's data dir (the embedded IPFS store, the outbox, the
// logs), while serve runs and after it stops, holds the erased record's key, password hash, plaintext or
// e-mail. The other record still downloads and its e-mail stays in the outbox.
func TestErasureLeavesNothingOnDiskPostgres(t *testing.T) {
	t.Parallel()
	dsn := freshPostgresSchema(t)
	db, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	dir := t.TempDir()
	in := startServe(t, dir, nil, "--database", dsn)
	e := sealAndErase(t, in, erasureStore{
		secrets: func(ref string) (key, hash string) {
			t.Helper()
			if err := db.QueryRow(t.Context(), `SELECT data_key, password_hash FROM records WHERE reference = $1`, ref).Scan(&key, &hash); err != nil {
				t.Fatal(err)
			}
			// The table files as they are now, not in shared buffers only: the search must see the key there.
			pgExec(t, db, `CHECKPOINT`)
			if got := inTableFiles(t, db, secrets{"wrapped data key": []byte(key)}); len(got) == 0 {
				t.Fatal("the table files do not hold the record's key before the erasure: the search cannot see it")
			}
			return key, hash
		},
		eraseJobsLeft: func(ref string) int {
			t.Helper()
			var n int
			if err := db.QueryRow(t.Context(), `SELECT count(*) FROM jobs WHERE reference = $1 AND kind = 'erase'`, ref).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		},
	})
	pgExec(t, db, `VACUUM (FULL) record_facts, payloads`) // as docs/privacy.md says, serve running
	pgExec(t, db, `CHECKPOINT`)
	if found := inTableFiles(t, db, e.s); len(found) > 0 {
		t.Errorf("after the erasure and VACUUM (FULL), the table files still hold:\n%s", strings.Join(found, "\n"))
	}
	e.checkDataDir(t, in, dir)
}

func pgExec(t *testing.T, db *pgx.Conn, sql string) {
	t.Helper()
	if _, err := db.Exec(t.Context(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// inTableFiles reads the files of the record_facts and payloads tables (their segments and maps, and their TOAST
// tables') from the server's data directory as raw bytes and lists which secrets they hold. The test runs on
// the database's machine, as a user that may read its files (root in CI).
func inTableFiles(t *testing.T, db *pgx.Conn, s secrets) []string {
	t.Helper()
	ctx := t.Context()
	var dataDir string
	if err := db.QueryRow(ctx, `SHOW data_directory`).Scan(&dataDir); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(ctx, `SELECT pg_relation_filepath(c.oid) FROM pg_class c WHERE c.oid IN ('record_facts'::regclass, 'payloads'::regclass)
		UNION ALL SELECT pg_relation_filepath(c.reltoastrelid) FROM pg_class c
		WHERE c.oid IN ('record_facts'::regclass, 'payloads'::regclass) AND c.reltoastrelid <> 0`)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, p := range paths {
		files, _ := filepath.Glob(filepath.Join(dataDir, p) + "*") // the main file, its segments, its maps
		if len(files) == 0 {
			t.Fatalf("no file for %s under %s", p, dataDir)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatalf("reading the table file %s (the test must run on the database's machine, with access to its files): %v", f, err)
			}
			for name, v := range s {
				if bytes.Contains(b, v) {
					found = append(found, p+": "+name)
				}
			}
		}
	}
	slices.Sort(found)
	return found
}

// checkDataDir reads every file of the data dir for the erased record's bytes while serve runs and again
// after it stops, and checks that the record sealed beside it still downloads and keeps its e-mail.
func (e *erased) checkDataDir(t *testing.T, in *instance, dir string) {
	t.Helper()
	if found := leftOnDisk(t, dir, e.s); len(found) > 0 {
		t.Errorf("while serve runs, after the erase job, the data dir still holds:\n%s", strings.Join(found, "\n"))
	}
	e.checkKept(t, in)
	in.stop()
	if found := leftOnDisk(t, dir, e.s); len(found) > 0 {
		t.Errorf("after serve stopped, the data dir still holds:\n%s", strings.Join(found, "\n"))
	}
	e.checkOutbox(t, dir)
}
