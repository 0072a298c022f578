package service

import (
	"context"
	"time"

	"seald.dev/seald"
)

// backlogEvery is how long a count of the waiting records is used before it is read again: intake reads it
// once a second rather than once a request (ttlcache.Value: one request reads it while the others go on
// with the previous count, for the count is a query over the waiting records).
const backlogEvery = time.Second

// admit refuses a new record of the caller's project on network while that network's backlog is at
// MaxBacklog or above, or the project's at MaxProjectBacklog or above. A store that cannot count lets the
// request through: the backlog check must not become a second way for intake to fail.
func (s *Service) admit(ctx context.Context, c *seald.Caller, network string) error {
	if s.MaxBacklog > 0 {
		n, err := s.backlog.Get(ctx, backlogEvery, s.Store.CountWaitingByNetwork)
		if err == nil && n[network] >= s.MaxBacklog {
			return seald.Errorf(seald.EOVERLOADED, "%d %s records are waiting in the pipeline (the limit is %d a network): the record was not accepted; send it again later", n[network], network, s.MaxBacklog)
		}
	}
	if s.MaxProjectBacklog > 0 && c != nil && c.Project != nil {
		n, err := s.projectBacklog.Get(ctx, backlogEvery, s.Store.CountWaitingByProject)
		if id := c.Project.ProjectID; err == nil && n[id] >= s.MaxProjectBacklog {
			return seald.Errorf(seald.EOVERLOADED, "%d records of this project are waiting in the pipeline (the limit is %d a project): the record was not accepted; send it again later", n[id], s.MaxProjectBacklog)
		}
	}
	return nil
}
