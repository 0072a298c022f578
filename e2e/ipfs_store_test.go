package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"seald.dev/seald/ipfs"
)

// TestEmbeddedIPFSFlatfsDataDirMigrated runs the real binary on a data dir whose embedded IPFS store was
// written by the flatfs store (ipfs/testdata/flatfs-datadir, see its README): serve migrates it at start,
// logs it, serves every old file at /ipfs/{cid} with the bytes of that CID, and seals new records into the
// migrated store. A second serve on the same data dir is refused with an error naming the store's directory.
func TestEmbeddedIPFSFlatfsDataDirMigrated(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "")
	dir := t.TempDir()
	fixture := filepath.Join("..", "ipfs", "testdata")
	for _, part := range []string{"blocks", "pins"} {
		if err := os.CopyFS(filepath.Join(dir, "ipfs", part), os.DirFS(filepath.Join(fixture, "flatfs-datadir", part))); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(fixture, "flatfs-datadir.json"))
	if err != nil {
		t.Fatal(err)
	}
	var files []struct {
		CID  string `json:"cid"`
		Size int    `json:"size"`
	}
	if err := json.Unmarshal(b, &files); err != nil || len(files) == 0 {
		t.Fatalf("fixture list: %v (%d files)", err, len(files))
	}

	p := startProcess(t, bin, dir, nil, "--log-level", "info")
	in := p.in
	if !strings.Contains(in.logText(), "migrated the embedded IPFS store to pebble") {
		t.Errorf("no migration in the log:\n%s", in.logText())
	}
	for _, f := range files {
		r := in.get("/ipfs/" + f.CID)
		if r.Status != 200 || len(r.Raw) != f.Size {
			t.Errorf("/ipfs/%s: %d with %d bytes, want 200 with %d", f.CID, r.Status, len(r.Raw), f.Size)
			continue
		}
		if got, _ := ipfs.CID(context.Background(), r.Raw); got != f.CID {
			t.Errorf("/ipfs/%s served bytes whose CID is %s", f.CID, got)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ipfs", "flatfs-migrated", "blocks")); err != nil {
		t.Errorf("old blocks not kept aside: %v", err)
	}

	r := in.post(authPath, map[string]any{"data": map[string]any{"after": "migration"}, "to": "a@example.com"})
	if r.Status != 201 {
		t.Fatalf("seal: %d %s", r.Status, r.Raw)
	}
	stored := str(in.waitState(str(r.Body, "data.reference"), "COMPLETED", time.Minute), "cid")
	if r := in.get("/ipfs/" + stored); r.Status != 200 {
		t.Errorf("/ipfs/%s of the new record: %d", stored, r.Status)
	}

	out, err := exec.CommandContext(t.Context(), bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir,
		"--chain-rpc-addr", "").CombinedOutput()
	want := filepath.Join(dir, "ipfs", "pebble")
	if err == nil || !strings.Contains(string(out), want) || !strings.Contains(string(out), "in use") {
		t.Errorf("second serve on the same data dir: %v\n%s\nwant an error naming %s as in use", err, out, want)
	}
}
