package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBulkSealPasswordsAtCapacity: `seald seal` of 200 records with passwords, 48 in flight, against a serve
// whose password hashing has room for one hash at a time, ends with all 200 accepted. The refusals of the
// hashing limit are 503s that carry X-Seald-Backpressure (nothing was accepted), which the CLI sends again;
// before issue 31 they lacked it and 40% of such a load was reported failed.
//
// The serve is the crashtest build with cheaper hashes (16 MiB, one pass, instead of 64 MiB and three) and a
// 300 ms wait for the slot instead of 2 s: 48 requests still overrun the slot (48 hashes take longer than the
// wait) while those within the wait keep it busy, as at full cost. The limit, its 503s and the retries are the
// same, while 200 hashes at full cost took minutes of the suite (178 s on a loaded machine).
func TestBulkSealPasswordsAtCapacity(t *testing.T) {
	t.Parallel()
	cheap := []string{"SEALD_TEST_PASSWORD_MEMORY=16384", "SEALD_TEST_PASSWORD_TIME=1", "SEALD_TEST_PASSWORD_WAIT=300ms"}
	p := startProcess(t, buildBinary(t, "crashtest"), t.TempDir(), cheap, "--password-memory", "64")
	in := p.in
	var jsonl strings.Builder
	for i := range 200 {
		fmt.Fprintf(&jsonl, `{"data":{"n":%d},"to":"r%d@example.com","password":"pw-%d"}`+"\n", i, i, i)
	}
	file := writeTemp(t, "records.jsonl", []byte(jsonl.String()))
	refs := filepath.Join(t.TempDir(), "refs.jsonl")
	cmd := exec.Command(buildBinary(t, ""), "seal", "--file", file, "--concurrency", "48", "--out", refs,
		"--url", in.URL, "--subscription-key", in.Sub, "--api-key", in.API)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil || !strings.Contains(stderr.String(), "submitted 200, accepted 200, failed 0") {
		t.Errorf("seal: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if n := len(strings.Split(strings.TrimSpace(readFile(t, refs)), "\n")); n != 200 {
		t.Errorf("--out has %d references, want 200", n)
	}
	// The limit was reached: without it this test would not show the retry.
	route := map[string]string{"route": "POST " + authPath, "status": "503"}
	if v, ok := sample(scrape(t, in.URL), "http_requests_total", route); !ok || v < 1 {
		t.Errorf("no 503 from password hashing at capacity (%v %v): the load did not reach the limit", v, ok)
	}
}
