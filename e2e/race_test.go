//go:build race

package e2e

// raceEnabled: the tests run with the race detector, so the binary that startServe and run start is built
// with it too, as serve was checked by it when it ran inside the test binary.
const raceEnabled = true
