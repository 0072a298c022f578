//go:build crashtest

package wiring

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// crashHook kills the process, as kill -9 would (no deferred function runs, nothing is flushed), at the crash
// point named by SEALD_CRASH_AT, the SEALD_CRASH_AFTER-th time it is passed (default 1). Only builds with the
// crashtest tag have it. The count is atomic: job runners pass the points concurrently.
func crashHook(getenv func(string) string) func(string) {
	at := Value(getenv("SEALD_CRASH_AT"))
	if at == "" {
		return nil
	}
	n := int64(1)
	if v := Value(getenv("SEALD_CRASH_AFTER")); v != "" {
		parsed, err := strconv.ParseInt(v, 10, 64)
		if err != nil || parsed < 1 {
			return nil
		}
		n = parsed
	}
	var left atomic.Int64
	left.Store(n)
	return func(point string) {
		if !strings.EqualFold(point, at) {
			return
		}
		if left.Add(-1) <= 0 {
			os.Exit(137)
		}
	}
}

// testClock, in crashtest builds only, runs serve's service and pipeline SEALD_TEST_CLOCK_OFFSET (a Go
// duration) ahead of the system clock, so that a test can see a retention period pass. It is for tests only
// and is absent from production builds.
func testClock(getenv func(string) string) func() time.Time {
	d, err := time.ParseDuration(Value(getenv("SEALD_TEST_CLOCK_OFFSET")))
	if err != nil || d == 0 {
		return nil
	}
	return func() time.Time { return time.Now().Add(d) }
}
