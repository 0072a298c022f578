package kubotest

import "testing"

// TestFreePortsDistinct: the API and the gateway never get the same port (CI saw the daemon fail to bind its
// gateway on the API's port when the two were asked for one at a time).
func TestFreePortsDistinct(t *testing.T) {
	for range 200 {
		p := freePorts(t, 2)
		if p[0] == p[1] || p[0] == 0 || p[1] == 0 {
			t.Fatalf("freePorts(2) = %v, want two distinct ports", p)
		}
	}
}
