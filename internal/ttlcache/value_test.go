package ttlcache

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestValue(t *testing.T) {
	ctx := context.Background()
	t.Run("read once while fresh, again when due", func(t *testing.T) {
		var v Value[int]
		var reads atomic.Int32
		read := func(context.Context) (int, error) { return int(reads.Add(1)), nil }
		for range 3 {
			if got, err := v.Get(ctx, time.Hour, read); got != 1 || err != nil {
				t.Fatalf("Get = %d, %v, want 1, nil", got, err)
			}
		}
		if got, _ := v.Get(ctx, 0, read); got != 2 || reads.Load() != 2 {
			t.Errorf("a due value: %d after %d reads, want 2 after 2", got, reads.Load())
		}
	})
	t.Run("while one caller reads, the others get the previous value at once", func(t *testing.T) {
		var v Value[int]
		v.Get(ctx, 0, func(context.Context) (int, error) { return 1, nil })
		started, release := make(chan struct{}), make(chan struct{})
		done := make(chan int)
		go func() {
			got, _ := v.Get(ctx, 0, func(context.Context) (int, error) {
				close(started)
				<-release
				return 2, nil
			})
			done <- got
		}()
		<-started
		got, err := v.Get(ctx, 0, func(context.Context) (int, error) {
			t.Error("a second read began while one was under way")
			return 3, nil
		})
		if got != 1 || err != nil {
			t.Errorf("during the read: %d, %v, want the previous 1", got, err)
		}
		close(release)
		if got := <-done; got != 2 {
			t.Errorf("the reader got %d, want 2", got)
		}
	})
	t.Run("a failed read keeps the last value and reports its error until the next read", func(t *testing.T) {
		var v Value[int]
		v.Get(ctx, 0, func(context.Context) (int, error) { return 7, nil })
		boom := errors.New("boom")
		if got, err := v.Get(ctx, 0, func(context.Context) (int, error) { return 0, boom }); got != 7 || err != boom {
			t.Errorf("failed read: %d, %v, want 7, boom", got, err)
		}
		if got, err := v.Get(ctx, time.Hour, nil); got != 7 || err != boom {
			t.Errorf("after it: %d, %v, want 7, boom", got, err)
		}
		if got, err := v.Get(ctx, 0, func(context.Context) (int, error) { return 8, nil }); got != 8 || err != nil {
			t.Errorf("next read: %d, %v, want 8, nil", got, err)
		}
	})
}
