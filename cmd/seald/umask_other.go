//go:build !unix

package main

// privateFiles does nothing where there is no umask: the data dir's own permissions are what protect it.
func privateFiles() {}
