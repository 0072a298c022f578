package seald_test

import (
	"testing"

	"seald.dev/seald"
)

// Every state and step: the move the lifecycle has, or ECONFLICT, and nothing leaves a final state.
func TestLifecycle(t *testing.T) {
	want := map[seald.State]map[seald.Step]seald.State{
		seald.StatePending:         {seald.StepStored: seald.StateIPFSStored, seald.StepFailed: seald.StateFailed},
		seald.StateIPFSStored:      {seald.StepPlaced: seald.StateAnchorSubmitted, seald.StepFailed: seald.StateFailed},
		seald.StateAnchorSubmitted: {seald.StepAnchored: seald.StateAnchored, seald.StepRequeued: seald.StateIPFSStored, seald.StepFailed: seald.StateFailed},
		seald.StateAnchored:        {seald.StepMailed: seald.StateEmailSent, seald.StepCompleted: seald.StateCompleted, seald.StepFailed: seald.StateFailed},
		seald.StateEmailSent:       {seald.StepCompleted: seald.StateCompleted, seald.StepFailed: seald.StateFailed},
		seald.StateCompleted:       {},
		seald.StateFailed:          {},
	}
	steps := []seald.Step{seald.StepStored, seald.StepPlaced, seald.StepAnchored, seald.StepRequeued, seald.StepMailed,
		seald.StepCompleted, seald.StepFailed}
	for _, from := range seald.States {
		for _, s := range steps {
			got, err := seald.Next(from, s)
			to, ok := want[from][s]
			switch {
			case ok && (err != nil || got != to):
				t.Errorf("Next(%s, %s) = %s, %v; want %s", from, s, got, err, to)
			case !ok && seald.ErrorCode(err) != seald.ECONFLICT:
				t.Errorf("Next(%s, %s) = %s, %v; want ECONFLICT", from, s, got, err)
			}
			if ok != seald.Allowed(from, to) && ok {
				t.Errorf("Allowed(%s, %s) = false for a move of the table", from, to)
			}
		}
	}
	for _, bad := range [][2]seald.State{{seald.StatePending, seald.StateCompleted}, {seald.StatePending, seald.StateEmailSent},
		{seald.StateCompleted, seald.StateFailed}, {seald.StateFailed, seald.StateCompleted}, {seald.StateIPFSStored, seald.StateAnchored}} {
		if seald.Allowed(bad[0], bad[1]) {
			t.Errorf("Allowed(%s, %s) = true", bad[0], bad[1])
		}
	}
}

// Advance conditions the update on the state read; TransitionOf refuses a step with several sources.
func TestAdvanceAndTransitionOf(t *testing.T) {
	u, err := seald.Advance(seald.StateAnchored, seald.StepMailed)
	if err != nil || u.When != seald.StateAnchored || u.State != seald.StateEmailSent {
		t.Errorf("Advance(ANCHORED, mailed) = %+v, %v", u, err)
	}
	if _, err := seald.Advance(seald.StateCompleted, seald.StepStored); seald.ErrorCode(err) != seald.ECONFLICT {
		t.Errorf("Advance(COMPLETED, stored) = %v, want ECONFLICT", err)
	}
	if tr := seald.TransitionOf(seald.StepRequeued); tr.From != seald.StateAnchorSubmitted || tr.To != seald.StateIPFSStored {
		t.Errorf("TransitionOf(requeued) = %+v", tr)
	}
	defer func() {
		if recover() == nil {
			t.Error("TransitionOf(failed) did not panic")
		}
	}()
	seald.TransitionOf(seald.StepFailed)
}
