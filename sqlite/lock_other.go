//go:build !unix

package sqlite

import (
	"os"
	"path/filepath"
	"sync"
)

// Without flock, locks are only exclusive within this process: enough for the one `seald serve` an embedded
// store has.
var (
	heldMu sync.Mutex
	held   = map[string]*os.File{}
)

func tryLockFile(f *os.File) (bool, error) {
	p, err := filepath.Abs(f.Name())
	if err != nil {
		return false, err
	}
	heldMu.Lock()
	defer heldMu.Unlock()
	if held[p] != nil {
		return false, nil
	}
	held[p] = f
	return true, nil
}

func unlockFile(f *os.File) {
	p, err := filepath.Abs(f.Name())
	if err != nil {
		return
	}
	heldMu.Lock()
	defer heldMu.Unlock()
	if held[p] == f {
		delete(held, p)
	}
}
