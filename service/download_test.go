package service_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/ipfs"
)

// movingStore runs the pipeline's store step (the envelope into IPFS, the CID saved, the payload dropped)
// just before the first Payload read, as a store step does when it ends between a download's two reads.
type movingStore struct {
	seald.Store
	t     *testing.T
	blobs seald.BlobStore
	moved bool
}

func (s *movingStore) Payload(ctx context.Context, reference string) ([]byte, error) {
	if !s.moved {
		s.moved = true
		s.move(ctx, reference)
	}
	return s.Store.Payload(ctx, reference)
}

func (s *movingStore) move(ctx context.Context, reference string) {
	jobs, err := s.Store.ClaimJobs(ctx, []string{seald.JobStore}, 10, time.Now(), time.Minute)
	if err != nil {
		s.t.Fatal(err)
	}
	for _, j := range jobs {
		if j.Reference != reference {
			continue
		}
		env, err := s.Store.Payload(ctx, reference)
		if err != nil {
			s.t.Fatal(err)
		}
		cid, err := s.blobs.Put(ctx, env)
		if err != nil {
			s.t.Fatal(err)
		}
		u := &seald.RecordUpdate{When: seald.StatePending, State: seald.StateIPFSStored, CID: cid,
			EncryptedFile: "ipfs://" + cid, At: time.Now()}
		if err := s.Store.CompleteJob(ctx, j, u, true); err != nil {
			s.t.Fatal(err)
		}
		return
	}
	s.t.Fatalf("no store job of %s", reference)
}

// TestDownloadWhileStored: a download whose record was read before the store step moved the data into IPFS
// reads it from IPFS, not a 404 "not stored yet" (seen in CI right after a seal).
func TestDownloadWhileStored(t *testing.T) {
	e := newAuthorityEnv(t)
	blobs, err := ipfs.OpenEmbedded(filepath.Join(t.TempDir(), "ipfs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { blobs.Close() })
	ms := &movingStore{Store: e.store, t: t, blobs: blobs}
	e.svc.Store, e.svc.Blobs = ms, blobs
	got, err := e.svc.Download(t.Context(), e.pub, e.pubRec.Reference, "pw")
	if err != nil {
		t.Fatalf("download while the store step ends: %v", err)
	}
	if !ms.moved || string(got) != `{"a":1}` {
		t.Fatalf("downloaded %q (store step ran: %v), want the sealed data", got, ms.moved)
	}
	r, err := e.store.Record(t.Context(), e.pubRec.Reference)
	if err != nil || r.CID == "" {
		t.Fatalf("the record has no CID after the store step: %v %v", r, err)
	}
}
