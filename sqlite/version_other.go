//go:build !unix

package sqlite

import (
	"context"
	"errors"
)

// walVersion is not read where the -shm file is not mapped (every verification reads its record).
type walVersion struct{}

func openVersion(context.Context, string, string) (*walVersion, error) {
	return nil, errors.New("the database's version is read on unix only")
}

func (v *walVersion) read() (walHeader, bool) { return walHeader{}, false }

func (v *walVersion) close() error { return nil }

func (v *walVersion) closeFile() error { return nil }
