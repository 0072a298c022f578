//go:build !linux

package ipfs

import "errors"

// syncFS has no portable form: without syncfs(2), group puts fail and every Put of the group is written
// alone, with flatfs's own fsyncs.
func syncFS(dir string) error { return errors.New("ipfs: no syncfs on this system") }
