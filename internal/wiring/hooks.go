//go:build !crashtest

package wiring

import (
	"time"

	"seald.dev/seald/secret"
)

// crashHook is nil in production builds: the crash points of the pipeline do nothing. Builds with the
// crashtest tag (hooks_crashtest.go) replace it.
func crashHook(getenv func(string) string) func(string) { return nil }

// testClock is nil in production builds: serve runs on the system clock.
func testClock(getenv func(string) string) func() time.Time { return nil }

// testPasswordCost is nil in production builds: password hashes take their full cost.
func testPasswordCost(getenv func(string) string) *secret.PasswordCost { return nil }
