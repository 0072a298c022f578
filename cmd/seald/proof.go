package main

import (
	"context"
	"errors"
	"io"
)

// proofVerify checks a proof bundle against a chain's RPC endpoint, without calling seald.
func proofVerify(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return errors.New("proof verify: not available yet (issue 3)")
}
