package main

import (
	"strings"
	"testing"
	"time"

	"seald.dev/seald/proof"
)

// TestKeyCoversAnchor: a credential's signing key is held to the trust root's windows as a bundle's is: a
// retired key covers anchors up to the block recorded at its retirement (by time on a chain it does not list),
// a compromised key covers none, and a method the root does not list (a business's key) is not the root's.
func TestKeyCoversAnchor(t *testing.T) {
	retiredAt := time.Date(2026, 11, 28, 23, 10, 26, 0, time.UTC)
	root := &proof.TrustRoot{Keys: []proof.TrustKey{
		{KeyID: "k1", Status: "retired", RetiredAt: &retiredAt, RetiredBlocks: []proof.TrustKeyBlock{{ChainID: "1337", Block: 20}}},
		{KeyID: "k0", Status: "compromised"},
		{KeyID: "k2", Status: "current"},
	}}
	for _, c := range []struct {
		name, vm, chain string
		block           uint64
		at              time.Time
		refused         string
	}{
		{"retired, anchor in the last block it covers", "did:web:s#k1", "1337", 20, retiredAt, ""},
		{"retired, anchor after its block", "did:web:s#k1", "1337", 21, retiredAt.Add(-time.Hour), "retired at block 20"},
		{"retired, another chain, before by time", "did:web:s#k1", "137", 99, retiredAt.Add(-time.Second), ""},
		{"retired, another chain, after by time", "did:web:s#k1", "137", 99, retiredAt, "was retired at"},
		{"compromised", "did:web:s#k0", "1337", 1, retiredAt.Add(-time.Hour), "compromised"},
		{"current", "did:web:s#k2", "1337", 500, retiredAt.Add(time.Hour), ""},
		{"a business's own key", "did:web:acme.example#key-1", "1337", 500, retiredAt, ""},
	} {
		err := keyCoversAnchor(root, c.vm, c.chain, c.block, c.at)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("%s: got %v, want a refusal saying %q", c.name, err, c.refused)
		}
	}
}
