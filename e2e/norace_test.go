//go:build !race

package e2e

// raceEnabled: the tests run without the race detector (see race_test.go).
const raceEnabled = false
