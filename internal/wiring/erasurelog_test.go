package wiring

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A torn last line (a crash in the middle of an append) does not swallow the next entry: its reference is
// listed, so a restore replays it; the torn one, never committed, is left out. A log an earlier version
// wrote with the two merged on one line still gives the later reference.
func TestErasureLogTornLine(t *testing.T) {
	ctx := t.Context()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	t.Run("append after a torn line", func(t *testing.T) {
		dir := t.TempDir()
		l := OpenErasureLog(dir)
		if err := l.Append(ctx, "D-first", at); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(filepath.Join(dir, ErasureLogFile), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("2026-01-02T03:04:06Z D-tor"); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := l.Append(ctx, "D-next", at); err != nil {
			t.Fatal(err)
		}
		refs, err := l.References(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(refs, "D-first") || !slices.Contains(refs, "D-next") {
			t.Errorf("References = %v, want D-first and D-next", refs)
		}
	})
	t.Run("merged line of an earlier version", func(t *testing.T) {
		dir := t.TempDir()
		merged := "2026-01-02T03:04:05Z D-tor2026-01-02T03:04:06Z D-next\n"
		if err := os.WriteFile(filepath.Join(dir, ErasureLogFile), []byte(merged), 0o600); err != nil {
			t.Fatal(err)
		}
		refs, err := OpenErasureLog(dir).References(ctx)
		if err != nil || !slices.Equal(refs, []string{"D-next"}) {
			t.Errorf("References = %v, %v; want [D-next]", refs, err)
		}
	})
}
