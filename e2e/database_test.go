package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/sqlite"
)

// TestDatabaseNamedPostgresIsSQLite runs the crashtest binary with --database postgres.db (and
// ./postgres.db): a SQLite file whose name only begins with "postgres" is served as the SQLite store it is.
// No embedded-IPFS lock is taken on it (only a PostgreSQL database, shared by instances, needs one), and the
// lease of a step killed mid-way is released at the next start, so the record completes at once instead of
// after --job-lease (an hour here). Before the engine was decided once (Config.UsesPostgres), serve took
// any --database beginning with "postgres" for PostgreSQL while the store opened SQLite.
//
// Not parallel: its subtests change the working directory (t.Chdir), which is the whole process's.
func TestDatabaseNamedPostgresIsSQLite(t *testing.T) {
	bin := buildBinary(t, "crashtest") // before Chdir: it builds the package of the working directory
	for _, spec := range []string{"postgres.db", "./postgres.db"} {
		t.Run(spec, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir) // the spec is relative, as an operator would give it; the child inherits the directory
			args := []string{"--database", spec, "--workers", "1", "--job-lease", "1h"}
			p := startProcess(t, bin, dir, []string{"SEALD_CRASH_AT=" + seald.CrashAfterIPFSAdd}, args...)

			st, err := sqlite.Open(t.Context(), filepath.Join(dir, "postgres.db"))
			if err != nil {
				t.Fatalf("%s is not the SQLite database serve uses: %v", spec, err)
			}
			l, err := st.TryLock(t.Context(), "embedded-ipfs")
			if err != nil {
				t.Fatal(err)
			}
			if l == nil {
				t.Errorf("serve holds the embedded-IPFS lock on %s: it took the SQLite file for PostgreSQL", spec)
			} else {
				l.Release()
			}
			st.Close()

			sent := trySeal(p.in.URL, p.in.Sub, p.in.API, map[string]any{"database": spec}, nil)
			if code := p.wait(t, 90*time.Second); code != 137 {
				t.Fatalf("seald exited with %d, want 137 from the crash after the IPFS add\n%s", code, p.in.logText())
			}

			p = startProcess(t, bin, dir, nil, args...)
			// Looked up by hash: the crash may have cut the 201 off.
			code, env := tryGet(p.in.URL, p.in.Sub, p.in.API, verifyBase+"hash?hash="+sent.Hash)
			ref := str(env, "data.details.reference")
			if code != 200 || ref == "" {
				t.Fatalf("the record sealed before the crash: verify by hash %d %v (seal: %d %v)", code, env, sent.Status, sent.Err)
			}
			// Its store step was claimed for an hour when the process died: only a released lease lets it
			// complete within the wait.
			p.in.waitState(ref, "COMPLETED", 60*time.Second)
			p.terminate(t)

			b, err := os.ReadFile(filepath.Join(dir, "postgres.db"))
			if err != nil || !bytes.HasPrefix(b, []byte("SQLite format 3\x00")) {
				t.Errorf("%s is not a SQLite file: %v", spec, err)
			}
		})
	}
}
