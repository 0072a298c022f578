package main

import (
	"testing"

	"seald.dev/seald"
)

// TestDevelopmentChainWord: the CLI's verify tells a development record by the words seald.Chain.Name writes.
func TestDevelopmentChainWord(t *testing.T) {
	if developmentChain != seald.DevelopmentChain {
		t.Errorf("developmentChain %q, seald.DevelopmentChain %q", developmentChain, seald.DevelopmentChain)
	}
}
