package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"seald.dev/seald/storetest"
)

// BenchmarkCreateRecordBacklog reports the WAL bytes a create writes, from 64 writers with group commit,
// while 50,000 records wait in the pipeline with their payloads and store jobs (issue 45, item 3): what a
// random key costs there is a page of its own per record, where a sequential one shares the last page.
func BenchmarkCreateRecordBacklog(b *testing.B) {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "seald.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchCreateBacklog(b, s, 50000, 64, s.MeterWAL)
}
