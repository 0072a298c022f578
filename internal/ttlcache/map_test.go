package ttlcache

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestMap(t *testing.T) {
	t.Run("an entry is there until its own expiry, not at it", func(t *testing.T) {
		var m Map[string, int]
		m.Put(m.Generation(), "a", 1, t0.Add(time.Second), t0)
		if v, ok := m.Get("a", t0.Add(time.Second-time.Nanosecond)); !ok || v != 1 {
			t.Errorf("before the expiry: %d %v, want 1 true", v, ok)
		}
		if v, ok := m.Get("a", t0.Add(time.Second)); ok || v != 0 {
			t.Errorf("at the expiry: %d %v, want 0 false", v, ok)
		}
		if _, ok := m.Get("b", t0); ok {
			t.Error("a key never put is there")
		}
	})
	t.Run("a fill begun before an invalidation is not stored", func(t *testing.T) {
		var m Map[string, int]
		m.Put(m.Generation(), "a", 1, t0.Add(time.Hour), t0)
		gen := m.Generation() // a fill begins: its value is read elsewhere
		m.Invalidate()        // meanwhile the value is revoked here
		if m.Put(gen, "b", 2, t0.Add(time.Hour), t0) {
			t.Error("Put with the generation read before Invalidate stored its value")
		}
		if _, ok := m.Get("a", t0); ok {
			t.Error("an entry survived Invalidate")
		}
		if _, ok := m.Get("b", t0); ok {
			t.Error("the stale fill is there")
		}
		if !m.Put(m.Generation(), "c", 3, t0.Add(time.Hour), t0) {
			t.Error("a fill begun after the invalidation was not stored")
		}
	})
	t.Run("past the limit, expired entries go first, then all", func(t *testing.T) {
		m := Map[int, int]{Limit: 3}
		m.Put(0, 1, 1, t0.Add(time.Second), t0)
		m.Put(0, 2, 2, t0.Add(time.Hour), t0)
		m.Put(0, 3, 3, t0.Add(time.Hour), t0)
		now := t0.Add(2 * time.Second) // 1 has expired
		m.Put(0, 4, 4, t0.Add(time.Hour), now)
		if n := m.Len(); n != 3 {
			t.Errorf("after dropping the expired entry: %d entries, want 3", n)
		}
		for _, k := range []int{2, 3, 4} {
			if _, ok := m.Get(k, now); !ok {
				t.Errorf("live entry %d dropped while an expired one made room", k)
			}
		}
		m.Put(0, 5, 5, t0.Add(time.Hour), now) // none expired: everything goes
		if n := m.Len(); n != 1 {
			t.Errorf("full of live entries: %d entries after a Put, want 1 (all dropped, the new one kept)", n)
		}
		if _, ok := m.Get(5, now); !ok {
			t.Error("the new entry is not there")
		}
	})
	t.Run("the default limit", func(t *testing.T) {
		var m Map[int, int]
		for i := range DefaultLimit {
			m.Put(0, i, i, t0.Add(time.Hour), t0)
		}
		if n := m.Len(); n != DefaultLimit {
			t.Fatalf("%d entries, want %d", n, DefaultLimit)
		}
		m.Put(0, -1, -1, t0.Add(time.Hour), t0)
		if n := m.Len(); n != 1 {
			t.Errorf("%d entries past the default limit, want 1", n)
		}
	})
}

// TestMapDropsExpiredBelowTheLimit: entries that expired go at the next Put a sweep later, though the map is
// far from its limit (issue 45: the soak's answers filled their bound over eight minutes of one-minute lives).
func TestMapDropsExpiredBelowTheLimit(t *testing.T) {
	var m Map[int, int]
	for i := range 1000 {
		m.Put(0, i, i, t0.Add(time.Second), t0)
	}
	m.Put(0, -1, -1, t0.Add(time.Hour), t0.Add(SweepEvery/2)) // all expired, but the last sweep was at t0
	if n := m.Len(); n != 1001 {
		t.Errorf("within a sweep of the last: %d entries, want 1001 (none dropped yet)", n)
	}
	now := t0.Add(SweepEvery)
	m.Put(0, -2, -2, t0.Add(time.Hour), now)
	if n := m.Len(); n != 2 {
		t.Errorf("a sweep after the entries expired: %d entries, want 2 (the live ones)", n)
	}
	for _, k := range []int{-1, -2} {
		if _, ok := m.Get(k, now); !ok {
			t.Errorf("live entry %d dropped by the sweep", k)
		}
	}
}
