package ipfs_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"seald/ipfs"
)

// TestWriteFlatfsFixture writes testdata/flatfs-datadir with the flatfs store of this commit, for the
// migration test of the store that replaces it. It runs only when SEALD_WRITE_FLATFS_FIXTURE is set.
func TestWriteFlatfsFixture(t *testing.T) {
	if os.Getenv("SEALD_WRITE_FLATFS_FIXTURE") == "" {
		t.Skip("writes the fixture only when SEALD_WRITE_FLATFS_FIXTURE is set")
	}
	ctx := context.Background()
	dir := filepath.Join("testdata", "flatfs-datadir")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	e, err := ipfs.OpenEmbedded(dir)
	if err != nil {
		t.Fatal(err)
	}
	type file struct {
		CID  string `json:"cid"`
		Size int    `json:"size"`
		Seed uint64 `json:"seed"`
	}
	var files []file
	for _, f := range []file{{Size: 0, Seed: 1}, {Size: 10_000, Seed: 2}, {Size: 10_000, Seed: 3}, {Size: 256*KiB + 1, Seed: 4}} {
		if f.CID, err = e.Put(ctx, randomBytes(f.Size, f.Seed)); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(files, "", "  ")
	if err := os.WriteFile(filepath.Join("testdata", "flatfs-datadir.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
