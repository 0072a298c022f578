package evm

import (
	"crypto/rand"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"seald.dev/seald/proof"
)

func randomNode() [32]byte {
	var b [32]byte
	rand.Read(b[:])
	return b
}

// manifestOf builds a batch with BatchTree and the manifest of it, as the service publishes it.
func manifestOf(t *testing.T, first uint64, n int, withDisclosure func(i int) bool) (*proof.BatchManifest, [32]byte) {
	t.Helper()
	hashes := make([][32]byte, n)
	commitments, blinds := make([]*[32]byte, n), make([]*[32]byte, n)
	m := &proof.BatchManifest{Version: proof.ManifestVersion, Network: "POLYGON", FirstTokenID: first, Count: n}
	for i := range n {
		hashes[i] = randomNode()
		if withDisclosure(i) {
			c, b := randomNode(), randomNode()
			commitments[i], blinds[i] = &c, &b
		}
	}
	root, _, _, err := BatchTree(first, hashes, commitments, blinds)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		tok := proof.ManifestToken{TokenID: first + uint64(i)}
		c := ContentNode(LeafHash(first+uint64(i), hashes[i]), blinds[i])
		tok.ContentNode = hexutil.Encode(c[:])
		if commitments[i] != nil {
			d := DisclosureLeaf(first+uint64(i), *commitments[i])
			tok.DisclosureNode = hexutil.Encode(d[:])
		}
		m.Tokens = append(m.Tokens, tok)
	}
	m.Root = hexutil.Encode(root[:])
	return m, root
}

// check is CheckManifest without the chain: the recomputed root against the stated one and the chain's.
func check(m *proof.BatchManifest, onChain [32]byte) error {
	if err := CheckManifestRoot(m); err != nil {
		return err
	}
	if hexutil.Encode(onChain[:]) != m.Root {
		return errorString("the manifest's root " + m.Root + " is not the root on chain")
	}
	return nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

func TestManifestRecomputesTheBatchRoot(t *testing.T) {
	for name, with := range map[string]func(int) bool{
		"no disclosure": func(int) bool { return false },
		"all":           func(int) bool { return true },
		"some":          func(i int) bool { return i%3 == 0 },
	} {
		for _, n := range []int{1, 2, 5, 8} {
			m, root := manifestOf(t, 41, n, with)
			if err := check(m, root); err != nil {
				t.Errorf("%s, %d tokens: %v", name, n, err)
			}
		}
	}
}

func TestManifestRefusals(t *testing.T) {
	for name, mutate := range map[string]func(m *proof.BatchManifest){
		"a token dropped":      func(m *proof.BatchManifest) { m.Tokens = m.Tokens[1:]; m.Count--; m.FirstTokenID++ },
		"a token twice":        func(m *proof.BatchManifest) { m.Tokens[1] = m.Tokens[0] },
		"count off":            func(m *proof.BatchManifest) { m.Count++ },
		"a disclosure removed": func(m *proof.BatchManifest) { m.Tokens[0].DisclosureNode = "" },
		"a node changed":       func(m *proof.BatchManifest) { n := randomNode(); m.Tokens[2].ContentNode = hexutil.Encode(n[:]) },
		"a short node":         func(m *proof.BatchManifest) { m.Tokens[2].ContentNode = "0x00" },
		"another version":      func(m *proof.BatchManifest) { m.Version = 2 },
	} {
		m, root := manifestOf(t, 7, 4, func(int) bool { return true })
		mutate(m)
		if err := check(m, root); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	m, _ := manifestOf(t, 7, 4, func(int) bool { return true })
	if err := check(m, randomNode()); err == nil || !strings.Contains(err.Error(), "on chain") {
		t.Errorf("another root on chain: %v", err)
	}
}
