package pipeline

import (
	"context"
	"errors"
	"sync"
	"time"

	"seald.dev/seald"
)

// Steps saved together. The store, notify and finish steps of a record each end with one CompleteJob: its
// effect saved, its job deleted, the next queued, in one transaction. Saved one by one, each runner waited
// for its own commit before it took its next job, so a store that commits rarely (which is what writes fewer
// WAL pages per record: every commit rewrites the pages it touched) held every runner that long: the
// end-to-end bench with SQLite's committer lingering 50 ms fell to 831-851 COMPLETED records/s at 1,000/s
// offered. So when the store saves many completions at once (seald.JobsTogether), a runner hands its step's
// completion to the saver and goes on to its next job. The saver takes the completions that came while its
// last save ran (up to maxSaveTogether) and saves them in one transaction: one commit for the group, which no
// runner waits for.
//
// What a crash does is what it did: until the group is committed, the jobs are leased and unchanged, and a
// crash (or a lease that runs out) has the step run again, as it would after a crash between a step's effect
// and its save. What follows a save (the leader woken, the step's metrics) follows the group's commit; a
// completion the group could not save (its job no longer the runner's, its record moved on, the store
// unavailable) goes the way of a step saved alone: saved again alone (waiting out an unavailable store), and
// failing as its step would (retried, or failed for good). The runners hand completions over through a
// bounded queue, so a store slower than the steps holds the runners back instead of letting leases run out
// in memory.

// maxSaveTogether bounds the completions of one save: a group of a few hundred keeps one transaction short.
const maxSaveTogether = 512

// errSaving is a step's result when its completion was handed to the saver: the saver ends the step.
var errSaving = errors.New("the step's completion is being saved with others")

// completion is a step's effect waiting for the saver: what to save, and how its step ends.
type completion struct {
	seald.Completion
	r     *seald.Record
	start time.Time
	// alone saves the completion on its own, as the step did before steps were saved together: it is run
	// when the group could not save it, and its error is the step's.
	alone func(ctx context.Context) error
	// saved, when set, runs once the completion is saved.
	saved func()
}

// saver saves the completions of the runners in groups (see the top of this file).
type saver struct {
	p     *Pipeline
	store seald.JobsTogether
	in    chan *completion
	// after counts the completions being ended outside the saver's loop (those saved alone).
	after sync.WaitGroup
}

// newSaver returns the saver of p, or nil when its store saves each completion on its own.
func (p *Pipeline) newSaver() *saver {
	st, ok := p.Store.(seald.JobsTogether)
	if !ok {
		return nil
	}
	return &saver{p: p, store: st, in: make(chan *completion, p.Workers)}
}

// complete saves a step's completion c: handed to the saver, the step then being ended by it (errSaving),
// or, without one, at once, returning the step's error.
func (p *Pipeline) complete(ctx context.Context, c *completion) error {
	if p.saver == nil {
		if err := c.alone(ctx); err != nil {
			return err
		}
		if c.saved != nil {
			c.saved()
		}
		return nil
	}
	p.saver.in <- c
	return errSaving
}

// run saves what the runners hand over until in is closed and empty, then waits for the completions being
// saved alone. ctx gives the saves their values, never a cancellation: a step whose effect is done is saved.
func (s *saver) run(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	defer s.after.Wait()
	var group []*completion
	for {
		c, ok := <-s.in
		if !ok {
			return
		}
		group = append(group[:0], c)
		open := s.gather(&group)
		s.save(ctx, group)
		if !open {
			return
		}
	}
}

// gather adds to group what is already queued, up to maxSaveTogether; it returns false once in is closed.
// It waits for nothing more: the store's own group commit (SQLite's committer lingers) decides how often
// commits come, and what came while the last save ran is the next group.
func (s *saver) gather(group *[]*completion) bool {
	for len(*group) < maxSaveTogether {
		select {
		case c, ok := <-s.in:
			if !ok {
				return false
			}
			*group = append(*group, c)
		default:
			return true
		}
	}
	return true
}

// save saves a group in one transaction and ends each of its steps.
func (s *saver) save(ctx context.Context, group []*completion) {
	cs := make([]seald.Completion, len(group))
	for i, c := range group {
		cs[i] = c.Completion
	}
	saveCtx, cancel := context.WithTimeout(ctx, s.p.Lease)
	errs := s.store.CompleteJobs(saveCtx, cs)
	cancel()
	for i, c := range group {
		if errs[i] == nil {
			s.p.ended(ctx, c, nil)
			continue
		}
		// Saved again alone, as before steps were saved together: waiting out an unavailable store, or
		// failing as the step would, away from the loop so that the other groups go on.
		s.after.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, s.p.Lease)
			defer cancel()
			s.p.ended(ctx, c, c.alone(ctx))
		})
	}
}

// ended ends the step of a completion the saver took: what follows its save, its metrics, and when it could
// not be saved, its failure (retried or failed for good, see fail).
func (p *Pipeline) ended(ctx context.Context, c *completion, err error) {
	if err == nil && c.saved != nil {
		c.saved()
	}
	p.Observer.StepDone(stepName(c.Job.Kind), time.Since(c.start), err)
	if err != nil {
		p.fail(ctx, c.Job, c.r, errorTypeOf(c.Job.Kind), err)
	}
}
