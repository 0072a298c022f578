package e2e

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// TestSIGTERMReleasesClaims stops the binary with SIGTERM while records are in the pipeline. A graceful stop
// lets running steps finish (their jobs deleted with their effect) or release their claims: no job may stay
// leased, which would hold its record back for the whole lease (here 10 minutes) on a shared database. Then
// a restart completes every record.
func TestSIGTERMReleasesClaims(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "")
	dir := t.TempDir()
	p := startProcess(t, bin, dir, nil, "--job-lease", "10m")
	var refs []string
	for i := range 30 {
		r := p.in.post(authPath, map[string]any{"data": map[string]any{"shutdown": i}, "to": "a@example.com"})
		if r.Status != 201 {
			t.Fatalf("seal: %d %s", r.Status, r.Raw)
		}
		refs = append(refs, str(r.Body, "data.reference"))
	}
	p.terminate(t)

	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "seald.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var jobs, leased int
	if err := db.QueryRow(`SELECT count(*), count(leased_until) FROM jobs`).Scan(&jobs, &leased); err != nil {
		t.Fatal(err)
	}
	db.Close()
	t.Logf("after SIGTERM: %d jobs waiting, %d leased", jobs, leased)
	if leased != 0 {
		t.Errorf("%d jobs still claimed after a graceful stop", leased)
	}

	p = startProcess(t, bin, dir, nil, "--job-lease", "10m")
	for _, ref := range refs {
		p.in.waitState(ref, "COMPLETED", 90*time.Second)
	}
	p.terminate(t)
}
