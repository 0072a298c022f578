//go:build crashtest

package wiring

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"seald.dev/seald/secret"
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

// testPasswordCost, in crashtest builds only, lowers the Argon2id cost of new password hashes to
// SEALD_TEST_PASSWORD_MEMORY KiB and SEALD_TEST_PASSWORD_TIME passes, and the wait for room in the hashing
// budget to SEALD_TEST_PASSWORD_WAIT (a Go duration), so that a test of the hashing limit (200 password seals
// at concurrency 48) spends seconds, not minutes, hashing. Unset or invalid values keep the default's.
func testPasswordCost(getenv func(string) string) *secret.PasswordCost {
	var c secret.PasswordCost
	if v, err := strconv.ParseUint(Value(getenv("SEALD_TEST_PASSWORD_MEMORY")), 10, 32); err == nil {
		c.MemoryKiB = uint32(v)
	}
	if v, err := strconv.ParseUint(Value(getenv("SEALD_TEST_PASSWORD_TIME")), 10, 32); err == nil {
		c.Time = uint32(v)
	}
	if d, err := time.ParseDuration(Value(getenv("SEALD_TEST_PASSWORD_WAIT"))); err == nil && d > 0 {
		c.Wait = d
	}
	if c == (secret.PasswordCost{}) {
		return nil
	}
	return &c
}
