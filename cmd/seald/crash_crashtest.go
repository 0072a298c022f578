//go:build crashtest

package main

import (
	"os"
	"strings"
)

// crashHook kills the process, as kill -9 would (no deferred function runs, nothing is flushed), at the crash
// point named by SEALD_CRASH_AT, after SEALD_CRASH_AFTER passes (default 1). Only builds with the crashtest
// tag have it.
func crashHook(getenv func(string) string) func(string) {
	at := getenv("SEALD_CRASH_AT")
	if at == "" {
		return nil
	}
	n := 1
	if v := getenv("SEALD_CRASH_AFTER"); v != "" {
		for _, c := range v {
			if c < '0' || c > '9' {
				return nil
			}
		}
		n = 0
		for _, c := range v {
			n = n*10 + int(c-'0')
		}
	}
	return func(point string) {
		if !strings.EqualFold(point, at) {
			return
		}
		n--
		if n <= 0 {
			os.Exit(137)
		}
	}
}
