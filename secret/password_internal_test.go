package secret

import (
	"testing"

	"seald.dev/seald"
)

// TestPasswordAtCapacityIsBackpressure: a password hash that finds no room in the budget is refused with
// EOVERLOADED, which the API answers 503 with X-Seald-Backpressure, so that clients send it again: nothing of
// the request was done (issue 31: it was EUNAVAILABLE, a 503 clients must not retry).
func TestPasswordAtCapacityIsBackpressure(t *testing.T) {
	k, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	k.SetPasswordBudget(PasswordMemory) // room for one hash
	release, err := k.hashSlot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	_, err = k.HashPassword(t.Context(), "pw")
	if seald.ErrorCode(err) != seald.EOVERLOADED {
		t.Errorf("at capacity: %v (code %q), want %s", err, seald.ErrorCode(err), seald.EOVERLOADED)
	}
	release()
	if _, err := k.HashPassword(t.Context(), "pw"); err != nil {
		t.Errorf("with room again: %v", err)
	}
}
