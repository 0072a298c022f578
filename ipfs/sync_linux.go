package ipfs

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// syncFS makes every write to the filesystem holding dir durable, with one syncfs(2): the data and names of
// a whole group of files for the price of one journal commit and one cache flush. Since Linux 5.8 syncfs
// reports writeback errors of the filesystem, so a failed write is not taken for a durable one.
func syncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return fmt.Errorf("ipfs: syncfs %s: %w", dir, err)
	}
	return nil
}
