package main

import (
	"os"
	"strings"
	"testing"
)

// TestTrustURLOnlyAtWellKnownPath: `--trust URL` is fetched only from the well-known path of the issuer
// the trust root names; another path on the same origin (an upload, a user's page) is refused before it is
// fetched or pinned. Before, any path was accepted, and the first answer pinned for the whole origin.
func TestTrustURLOnlyAtWellKnownPath(t *testing.T) {
	pins := t.TempDir()
	for _, u := range []string{"http://127.0.0.1:1/uploads/seald-trust.json", "http://127.0.0.1:1" + trustRootSuffix + "?x=1"} {
		_, err := loadTrust(t.Context(), u, pins, false)
		if err == nil || !strings.Contains(err.Error(), trustRootSuffix) {
			t.Errorf("--trust %s: %v, want refused for its path", u, err)
		}
	}
	if entries, _ := os.ReadDir(pins); len(entries) != 0 {
		t.Errorf("a refused URL pinned something: %v", entries)
	}
}
