package console

import (
	"testing"
	"time"
)

// TestSessionsBoundedPerBusiness: one business signing in again and again loses only its own oldest
// sessions, never another business's; with the whole table full of live sessions, a business without any is
// refused rather than pushing another's out; idle sessions make room. (Before, the table was shared: at
// its bound the oldest session of any business was evicted, after a scan of the whole map under the lock.)
func TestSessionsBoundedPerBusiness(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { return now }
	tick := func() { now = now.Add(time.Second) }

	t.Run("a business at its bound gives up its own oldest", func(t *testing.T) {
		tb := newSessions(time.Hour, 12*time.Hour, clock)
		tb.perBiz, tb.limit = 3, 10
		other := tb.create("biz_b", "s", "a")
		var mine []*session
		for range 10 {
			tick()
			mine = append(mine, tb.create("biz_a", "s", "a"))
		}
		if tb.get(other.id) == nil {
			t.Fatal("another business's session was evicted")
		}
		for i, s := range mine {
			if live := tb.get(s.id) != nil; live != (i >= 7) {
				t.Errorf("session %d of the flooding business live=%v", i, live)
			}
		}
		if n := tb.byBusiness["biz_a"].Len(); n != 3 {
			t.Errorf("flooding business holds %d sessions, want 3", n)
		}
	})
	t.Run("a full table refuses a business with none", func(t *testing.T) {
		tb := newSessions(time.Hour, 12*time.Hour, clock)
		tb.perBiz, tb.limit = 5, 4
		for range 4 {
			tick()
			if tb.create("biz_a", "s", "a") == nil {
				t.Fatal("refused under the bound")
			}
		}
		if s := tb.create("biz_b", "s", "a"); s != nil {
			t.Fatal("a business without sessions pushed another's out of a full table")
		}
		if s := tb.create("biz_a", "s", "a"); s == nil || len(tb.byID) != 4 {
			t.Fatalf("a business with sessions could not replace its own oldest: %v, %d sessions", s, len(tb.byID))
		}
		now = now.Add(2 * time.Hour) // all idle past the hour
		if s := tb.create("biz_b", "s", "a"); s == nil || len(tb.byID) != 1 {
			t.Fatalf("idle sessions did not make room: %v, %d sessions", s, len(tb.byID))
		}
	})
	t.Run("end and expiry keep the lists in step", func(t *testing.T) {
		tb := newSessions(time.Minute, time.Hour, clock)
		a := tb.create("biz_a", "s", "a")
		b := tb.create("biz_a", "s", "a")
		tb.end(a.id)
		tb.end(a.id)
		now = now.Add(2 * time.Minute)
		if tb.get(b.id) != nil {
			t.Fatal("an idle session is still live")
		}
		if len(tb.byID) != 0 || tb.byUse.Len() != 0 || len(tb.byBusiness) != 0 {
			t.Errorf("left behind: %d ids, %d in use order, %d businesses", len(tb.byID), tb.byUse.Len(), len(tb.byBusiness))
		}
	})
}
