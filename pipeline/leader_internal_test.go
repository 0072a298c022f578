package pipeline

import (
	"testing"
	"time"
)

// The leader looks for a receipt again soon after a send, then less and less often, never more than each
// 100 ms nor more often than each 2 ms, and never later than its poll.
func TestReceiptWait(t *testing.T) {
	for _, c := range []struct {
		since, poll, want time.Duration
	}{
		{0, time.Second, 2 * time.Millisecond},
		{time.Millisecond, time.Second, 2 * time.Millisecond},
		{30 * time.Millisecond, time.Second, 15 * time.Millisecond},
		{150 * time.Millisecond, time.Second, 75 * time.Millisecond},
		{time.Second, time.Second, 100 * time.Millisecond},
		{time.Hour, time.Second, 100 * time.Millisecond}, // a batch restarted with: no send since
		{30 * time.Millisecond, 5 * time.Millisecond, 5 * time.Millisecond},
	} {
		if got := receiptWait(c.since, c.poll); got != c.want {
			t.Errorf("receiptWait(%v, %v) = %v, want %v", c.since, c.poll, got, c.want)
		}
	}
}
