package ipfs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"seald.dev/seald/ipfs"
)

// fixtureFile is one file of testdata/flatfs-datadir, a store written by the flatfs code (see
// testdata/README.md).
type fixtureFile struct {
	CID  string `json:"cid"`
	Size int    `json:"size"`
	Seed uint64 `json:"seed"`
}

// flatfsFixture copies the named parts (blocks, pins) of testdata/flatfs-datadir into dir and returns the
// files the fixture holds.
func flatfsFixture(t *testing.T, dir string, parts ...string) []fixtureFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "flatfs-datadir.json"))
	if err != nil {
		t.Fatal(err)
	}
	var files []fixtureFile
	if err := json.Unmarshal(b, &files); err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("the fixture lists no files")
	}
	for _, part := range parts {
		if err := os.CopyFS(filepath.Join(dir, part), os.DirFS(filepath.Join("testdata", "flatfs-datadir", part))); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// checkFixtureFiles reads every file of the fixture back by its CID, checks its bytes and its pin.
func checkFixtureFiles(t *testing.T, e *ipfs.Embedded, files []fixtureFile) {
	t.Helper()
	ctx := context.Background()
	for _, f := range files {
		got, err := e.Get(ctx, f.CID)
		if err != nil {
			t.Errorf("Get(%s): %v", f.CID, err)
			continue
		}
		if want := randomBytes(f.Size, f.Seed); !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes read back differ from the %d stored", f.CID, len(got), len(want))
		}
		if ok, err := e.Pinned(ctx, f.CID); !ok || err != nil {
			t.Errorf("%s not pinned after the migration: %v", f.CID, err)
		}
	}
}

// logBuffer collects what a logger writes, safely from several goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func openLogged(t *testing.T, dir string) (*ipfs.Embedded, *logBuffer, error) {
	t.Helper()
	var logs logBuffer
	e, err := ipfs.OpenEmbedded(dir, ipfs.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err == nil {
		t.Cleanup(func() { e.Close() })
	}
	return e, &logs, err
}

func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}

// A data dir of the flatfs store is migrated at the first open: every file reads back by its CID, pinned;
// the old directories are moved aside (not left where a second migration would run), the migration is
// logged, and the next open finds nothing to migrate and still reads everything.
func TestEmbeddedMigratesFlatfs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	files := flatfsFixture(t, dir, "blocks", "pins")
	e, logs, err := openLogged(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	checkFixtureFiles(t, e, files)
	if !strings.Contains(logs.String(), "migrated the embedded IPFS store to pebble") || !strings.Contains(logs.String(), "pins=4") {
		t.Errorf("migration not logged with its counts:\n%s", logs)
	}
	for _, part := range []string{"blocks", "pins"} {
		if exists(t, filepath.Join(dir, part)) {
			t.Errorf("%s/ still in place after the migration", part)
		}
		if !exists(t, filepath.Join(dir, "flatfs-migrated", part, "SHARDING")) {
			t.Errorf("%s/ not kept under flatfs-migrated/", part)
		}
	}
	// The migrated store takes new files beside the old ones.
	fresh := randomBytes(20_000, 77)
	c, err := e.Put(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	e, logs, err = openLogged(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "migrat") {
		t.Errorf("second open migrated again:\n%s", logs)
	}
	checkFixtureFiles(t, e, files)
	if got, err := e.Get(ctx, c); err != nil || !bytes.Equal(got, fresh) {
		t.Errorf("file put after the migration: %v", err)
	}
}

// A migration stopped after part of the blocks were copied (as a crash would stop it) leaves the flatfs
// store in place; the next open redoes it and every file reads back.
func TestEmbeddedMigrationInterruptedIsRedone(t *testing.T) {
	dir := t.TempDir()
	files := flatfsFixture(t, dir, "blocks", "pins")
	ipfs.SetMigrateBatchBytes(t, 1) // one batch per record
	ipfs.FailMigrationAfter(t, 2)
	if e, _, err := openLogged(t, dir); err == nil {
		e.Close()
		t.Fatal("the interrupted migration opened the store")
	}
	for _, part := range []string{"blocks", "pins"} {
		if !exists(t, filepath.Join(dir, part, "SHARDING")) {
			t.Fatalf("%s/ moved before the migration finished", part)
		}
	}
	ipfs.FailMigrationAfter(t, 1<<30)
	e, logs, err := openLogged(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	checkFixtureFiles(t, e, files)
	if !strings.Contains(logs.String(), "blocks=6") {
		t.Errorf("redone migration does not count all 6 blocks:\n%s", logs)
	}
}

// A crash between moving blocks/ aside and moving pins/ leaves only pins/ in place, the blocks being durable
// in pebble: the next open migrates the pins alone and every file reads back.
func TestEmbeddedMigrationResumedAfterBlocksMoved(t *testing.T) {
	dir := t.TempDir()
	files := flatfsFixture(t, dir, "blocks")
	e, _, err := openLogged(t, dir) // migrates the blocks and moves them aside, as the crashed run did
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := e.Pinned(context.Background(), files[0].CID); ok || err != nil {
		t.Fatalf("Pinned before pins/ was migrated: %v, %v", ok, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	flatfsFixture(t, dir, "pins")
	e, logs, err := openLogged(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	checkFixtureFiles(t, e, files)
	if !strings.Contains(logs.String(), "blocks=0 pins=4") {
		t.Errorf("resumed migration should copy the 4 pins only:\n%s", logs)
	}
	if !exists(t, filepath.Join(dir, "flatfs-migrated", "pins", "SHARDING")) || exists(t, filepath.Join(dir, "pins")) {
		t.Error("pins/ not moved aside")
	}
}

// Pebble locks its directory: a second open of a store that is open fails with an error naming it, and
// once the first is closed the store opens again.
func TestEmbeddedRefusesSecondOpen(t *testing.T) {
	dir := t.TempDir()
	e, err := ipfs.OpenEmbedded(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ipfs.OpenEmbedded(dir)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "pebble")) || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second open: %v; want an error naming %s as in use", err, dir)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := e.Put(context.Background(), []byte("late")); err == nil {
		t.Fatal("Put after Close succeeded")
	}
	openEmbedded(t, dir)
}
