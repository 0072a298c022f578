package secret

import (
	"context"
	"strings"
	"testing"
	"time"

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

// TestPasswordCost: a lowered cost (test builds only) hashes with its own parameters and waits its own time
// for room, and the hash it makes, which names those parameters, checks like a full-cost one; without
// SetPasswordCost a hash takes RFC 9106's full cost.
func TestPasswordCost(t *testing.T) {
	full, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	h, err := full.HashPassword(t.Context(), "pw")
	if err != nil || !strings.HasPrefix(h, "$argon2id$v=19$m=65536,t=3,p=2$") {
		t.Errorf("full cost: %q, %v", h, err)
	}
	cheap, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	cheap.SetPasswordBudget(PasswordMemory)
	cheap.SetPasswordCost(PasswordCost{MemoryKiB: 1024, Time: 1, Wait: 10 * time.Millisecond})
	h, err = cheap.HashPassword(t.Context(), "pw")
	if err != nil || !strings.HasPrefix(h, "$argon2id$v=19$m=1024,t=1,p=2$") {
		t.Fatalf("lowered cost: %q, %v", h, err)
	}
	for _, k := range []*Keys{full, cheap} {
		if ok, err := k.CheckPassword(t.Context(), h, "pw"); !ok || err != nil {
			t.Errorf("the right password: %v, %v", ok, err)
		}
		if ok, _ := k.CheckPassword(t.Context(), h, "wrong"); ok {
			t.Error("a wrong password checked")
		}
	}
	release, err := cheap.hashSlot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(t.Context(), time.Second) // far past the 10 ms wait, far short of 2 s
	defer cancel()
	if _, err := cheap.HashPassword(ctx, "pw"); seald.ErrorCode(err) != seald.EOVERLOADED {
		t.Errorf("at capacity with a 10 ms wait: %v, want %s before the context's second", err, seald.EOVERLOADED)
	}
}
