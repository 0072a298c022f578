package pipeline

import (
	"context"
	"testing"

	"seald.dev/seald"
)

// groups records the groups CompleteJobs was given.
type groups struct {
	Store
	sizes []int
}

func (g *groups) CompleteJobs(ctx context.Context, cs []seald.Completion) []error {
	g.sizes = append(g.sizes, len(cs))
	return make([]error, len(cs))
}

// The completions queued while the saver was busy are saved in one transaction, and each of their steps
// ends after it: what follows its save runs once.
func TestSaverSavesWhatIsQueuedTogether(t *testing.T) {
	g := &groups{}
	p := &Pipeline{Store: g, Workers: 8}
	p.init()
	s := p.newSaver()
	if s == nil {
		t.Fatal("no saver for a store that completes jobs together")
	}
	saved := 0
	for i := range 5 {
		s.in <- &completion{Completion: seald.Completion{Job: &seald.Job{ID: int64(i + 1), Kind: seald.JobStore}},
			r: &seald.Record{}, saved: func() { saved++ }}
	}
	close(s.in)
	s.run(context.Background())
	if len(g.sizes) != 1 || g.sizes[0] != 5 {
		t.Errorf("CompleteJobs given groups of %v, want one of 5", g.sizes)
	}
	if saved != 5 {
		t.Errorf("%d steps ended as saved, want 5", saved)
	}
}

// A store without CompleteJobs has no saver: each step saves its own completion, as before.
func TestNoSaverWithoutJobsTogether(t *testing.T) {
	p := &Pipeline{Store: struct{ Store }{}, Workers: 8}
	p.init()
	if s := p.newSaver(); s != nil {
		t.Error("a saver for a store that cannot complete jobs together")
	}
}
