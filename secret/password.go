package secret

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"
	"time"

	"seald.dev/seald"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters for record passwords (RFC 9106's second recommended option, lighter on memory so that
// a burst of authentications with passwords does not exhaust a small machine).
const (
	argonTime    = 3
	argonMemory  = 64 * 1024 // KiB
	argonThreads = 2
	argonKeyLen  = 32
)

// PasswordMemory is the memory one password hash takes (argonMemory), for budgets.
const PasswordMemory = argonMemory << 10

// DefaultPasswordBudget is the memory all password hashing may take at once: two hashes.
const DefaultPasswordBudget = 2 * PasswordMemory

// passwordWait is how long a password hash waits for room in the budget before it is refused.
const passwordWait = 2 * time.Second

// PasswordCost is the Argon2id cost of new password hashes and how long a hash waits for room in the
// budget. Production uses RFC 9106's parameters above; only test builds change it (SetPasswordCost), so that a test
// of the hashing limit does not spend minutes hashing at full cost. A hash records its own parameters, so
// hashes of any cost are checked alike.
type PasswordCost struct {
	MemoryKiB uint32        // Argon2id memory, in KiB
	Time      uint32        // Argon2id passes
	Wait      time.Duration // longest wait for room in the budget before EOVERLOADED
}

// defaultPasswordCost is the cost of every password hash in production.
var defaultPasswordCost = PasswordCost{MemoryKiB: argonMemory, Time: argonTime, Wait: passwordWait}

// SetPasswordCost changes the cost of new password hashes (zero fields keep the default's). The budget
// still counts PasswordMemory a hash. Call it before the keys are used; serve calls it only in builds with
// the crashtest tag.
func (k *Keys) SetPasswordCost(c PasswordCost) {
	d := defaultPasswordCost
	if c.MemoryKiB == 0 {
		c.MemoryKiB = d.MemoryKiB
	}
	if c.Time == 0 {
		c.Time = d.Time
	}
	if c.Wait == 0 {
		c.Wait = d.Wait
	}
	k.cost = &c
}

// passwordCost is the cost in force.
func (k *Keys) passwordCost() PasswordCost {
	if k.cost != nil {
		return *k.cost
	}
	return defaultPasswordCost
}

// SetPasswordBudget bounds the memory all password hashing takes at once (at least one hash's). Each hash
// takes 64 MiB, and nothing else bounds how many requests hash at once: 48 concurrent password seals once took
// 3 GiB. A hash that finds no room within passwordWait is refused with EOVERLOADED (nothing of the request was
// accepted), which the API answers 503 with Retry-After and X-Seald-Backpressure, so clients send it again. Call it before the keys are used; without it the budget is DefaultPasswordBudget.
func (k *Keys) SetPasswordBudget(bytes int64) {
	k.hashing = make(chan struct{}, max(1, bytes/PasswordMemory))
}

// hashSlot waits for room to hash a password; release gives it back.
func (k *Keys) hashSlot(ctx context.Context) (release func(), err error) {
	k.once.Do(func() {
		if k.hashing == nil {
			k.SetPasswordBudget(DefaultPasswordBudget)
		}
	})
	t := time.NewTimer(k.passwordCost().Wait)
	defer t.Stop()
	select {
	case k.hashing <- struct{}{}:
		return func() {
			// The hash's 64 MiB are garbage now. Collected at once, their pages serve the next hash; left to
			// the collector's pace, the heap would grow to twice its live size first, hundreds of MiB more.
			runtime.GC()
			<-k.hashing
		}, nil
	case <-t.C:
		return nil, seald.Errorf(seald.EOVERLOADED, "password hashing is at capacity: the request was not accepted; send it again shortly")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// HashPassword returns the encoded Argon2id hash of a record password: the only form in which it is kept.
func (k *Keys) HashPassword(ctx context.Context, password string) (string, error) {
	release, err := k.hashSlot(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	c := k.passwordCost()
	key := argon2.IDKey([]byte(password), salt, c.Time, c.MemoryKiB, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, c.MemoryKiB, c.Time, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// CheckPassword reports whether password matches an encoded hash from HashPassword; it waits for room in the
// budget as HashPassword does.
func (k *Keys) CheckPassword(ctx context.Context, encoded, password string) (bool, error) {
	release, err := k.hashSlot(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	return checkPassword(encoded, password), nil
}

func checkPassword(encoded, password string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var m uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}
