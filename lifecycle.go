package seald

import "slices"

// Step is what moves a record from one pipeline state to the next. The pipeline names the step it took and
// the table (Lifecycle) says where the record goes from where it is: the rule of which state may follow
// which is written here once, not in each step and each store write.
type Step string

// The steps of a record's pipeline.
const (
	// StepStored: the store step put the envelope into IPFS (or, the record being erased first, put none).
	StepStored Step = "stored"
	// StepPlaced: the anchor leader placed the record in a batch whose transaction is signed.
	StepPlaced Step = "placed"
	// StepAnchored: the batch's transaction is included with the configured confirmations.
	StepAnchored Step = "anchored"
	// StepRequeued: the batch reverted, or its nonce went to another transaction: back to the queue.
	StepRequeued Step = "requeued"
	// StepMailed: the notify step sent the e-mail and the signature is left to a finish job.
	StepMailed Step = "mailed"
	// StepCompleted: the proof digest is signed (by the notify step, with its e-mail, or the finish step).
	StepCompleted Step = "completed"
	// StepFailed: a step that makes the seal failed for good.
	StepFailed Step = "failed"
)

// Move is one row of the lifecycle: a record in From reaches To by Step.
type Move struct {
	From State
	Step Step
	To   State
}

// Lifecycle is every move a record may make, and so every state change the pipeline asks a store for. A
// state and a step not on it are refused (Next). FAILED and COMPLETED are final: no move leaves them.
var Lifecycle = []Move{
	{StatePending, StepStored, StateIPFSStored},
	{StateIPFSStored, StepPlaced, StateAnchorSubmitted},
	{StateAnchorSubmitted, StepAnchored, StateAnchored},
	{StateAnchorSubmitted, StepRequeued, StateIPFSStored},
	{StateAnchored, StepMailed, StateEmailSent},
	{StateAnchored, StepCompleted, StateCompleted},
	{StateEmailSent, StepCompleted, StateCompleted},
	{StatePending, StepFailed, StateFailed},
	{StateIPFSStored, StepFailed, StateFailed},
	{StateAnchorSubmitted, StepFailed, StateFailed},
	{StateAnchored, StepFailed, StateFailed},
	{StateEmailSent, StepFailed, StateFailed},
}

// Next returns the state a record in from reaches by step s; ECONFLICT when the lifecycle has no such move
// (the record is past the step, or not there yet).
func Next(from State, s Step) (State, error) {
	for _, m := range Lifecycle {
		if m.From == from && m.Step == s {
			return m.To, nil
		}
	}
	return "", Errorf(ECONFLICT, "lifecycle: a record in %s cannot be %s", from, s)
}

// Allowed reports whether some step moves a record from one state to the other.
func Allowed(from, to State) bool {
	return slices.ContainsFunc(Lifecycle, func(m Move) bool { return m.From == from && m.To == to })
}

// Advance is the RecordUpdate of step s on a record read in from: it applies only while the record is still
// in from (RecordUpdate.When) and moves it to the state the lifecycle gives; ECONFLICT when there is none.
func Advance(from State, s Step) (*RecordUpdate, error) {
	to, err := Next(from, s)
	if err != nil {
		return nil, err
	}
	return &RecordUpdate{When: from, State: to}, nil
}

// TransitionOf is the Transition of a step that moves records from one state only (the anchor leader's moves
// of a batch's records); it panics for a step that has none or several, a mistake in the program.
func TransitionOf(s Step) Transition {
	var t Transition
	n := 0
	for _, m := range Lifecycle {
		if m.Step == s {
			t.From, t.To = m.From, m.To
			n++
		}
	}
	if n != 1 {
		panic("seald: step " + string(s) + " does not move records from exactly one state")
	}
	return t
}
