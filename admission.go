package seald

import (
	"context"
	"sync"
	"time"
)

// backlogCache keeps the number of records waiting in the pipeline for a second, so that intake reads it
// once a second rather than once a request. One request refreshes it while the others go on with the
// previous count: the count is a query over the waiting records, and holding every request behind it each
// second stalled intake for as long as it ran.
type backlogCache struct {
	mu         sync.Mutex
	at         time.Time
	n          map[string]int // records waiting, by network
	last       error
	refreshing bool
}

// admit refuses a new record of network while that network's backlog is at MaxBacklog or above. A store
// that cannot count lets the request through: the backlog check must not become a second way for intake to
// fail.
func (s *Service) admit(ctx context.Context, network string) error {
	if s.MaxBacklog <= 0 {
		return nil
	}
	b := &s.backlog
	b.mu.Lock()
	refresh := !b.refreshing && time.Since(b.at) >= time.Second
	if refresh {
		b.refreshing = true
	}
	n, last := b.n, b.last
	b.mu.Unlock()
	if refresh {
		waiting, err := s.Store.CountWaitingByNetwork(ctx)
		b.mu.Lock()
		b.at, b.refreshing, b.last = time.Now(), false, err
		if err == nil {
			b.n = waiting
		}
		n, last = b.n, b.last
		b.mu.Unlock()
	}
	if last == nil && n[network] >= s.MaxBacklog {
		return Errorf(EOVERLOADED, "%d %s records are waiting in the pipeline (the limit is %d a network): the record was not accepted; send it again later", n[network], network, s.MaxBacklog)
	}
	return nil
}
