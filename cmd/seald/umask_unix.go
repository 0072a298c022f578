//go:build unix

package main

import "syscall"

// privateFiles sets the process's umask to 077 before any command runs, so that every file and directory
// seald or a library it embeds creates (pebble's tables, the embedded chain's database and blob pool, the
// contract file) is readable by its owner only, as the data dir's own 0700 promises, instead of each
// library's 0644 default.
func privateFiles() { syscall.Umask(0o077) }
