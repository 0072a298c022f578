//go:build !crashtest

package main

// crashHook is nil in production builds: the crash points of the pipeline do nothing. Builds with the
// crashtest tag (crash_test.go's binary) replace it.
func crashHook(getenv func(string) string) func(string) { return nil }
