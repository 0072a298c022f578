package pipeline

import (
	"context"
	"log/slog"
	"time"
)

// Every runs fn at once and then every interval until ctx ends, for periodic sweeps (retention) whose work is
// made durable by fn itself: each round finds again whatever an interrupted one left. An error is logged and
// the next round tries again. It returns nil when ctx ends.
func Every(ctx context.Context, interval time.Duration, logger *slog.Logger, name string, fn func(context.Context) error) error {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if err := fn(ctx); err != nil && ctx.Err() == nil {
			logger.Error(name+" sweep", "err", err)
		}
		t.Reset(interval)
	}
}
