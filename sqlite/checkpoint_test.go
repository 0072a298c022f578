package sqlite

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"seald.dev/seald"
)

// The log is copied into the database file by the checkpointer, on its own connection, as writes commit;
// the writer checkpoints itself only past backstopPages.
func TestCheckpointOffTheWriter(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "seald.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var auto int
	if err := s.w.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&auto); err != nil || auto != backstopPages {
		t.Fatalf("the writer's wal_autocheckpoint is %d (%v), want %d", auto, err, backstopPages)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b := &seald.Business{ID: "00000000-0000-4000-8000-000000000002", BusinessID: "biz_ckpt", Name: "Checkpoint",
		DateRegistered: at}
	p := &seald.Project{ID: "00000000-0000-4000-9000-000000000002", ProjectID: "prj_ckpt", BusinessID: b.BusinessID,
		Name: "Docs", Privacy: seald.PrivacyPublic, Network: seald.NetworkPolygon}
	if err := s.CreateBusiness(ctx, b, p); err != nil {
		t.Fatal(err)
	}
	fileSize := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := fileSize()
	for i := range checkpointEvery {
		r := &seald.Record{Reference: fmt.Sprintf("D-ckpt-%04d", i), Pipeline: seald.PipelinePolygon,
			BusinessID: b.BusinessID, ProjectID: p.ProjectID, Network: seald.NetworkPolygon,
			Hash: fmt.Sprintf("%064x", i), MimeType: "application/json", Privacy: seald.PrivacyPublic,
			Status: seald.StatusActive, State: seald.StatePending, CreatedAt: at, UpdatedAt: at}
		if err := s.CreateRecord(ctx, r, []byte(`{"i":1}`), &seald.Job{Kind: seald.JobStore, RunAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); s.ckpt.runs.Load() == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("no checkpoint after %d writes", checkpointEvery)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if after := fileSize(); after <= before {
		t.Errorf("the database file is %d bytes after the checkpoint, %d before: nothing was copied into it", after, before)
	}
}
