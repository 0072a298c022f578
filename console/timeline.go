package console

import (
	"fmt"
	"time"

	"seald.dev/seald"
)

// A record's pipeline timeline: each state it reached (seald.Record.Timeline) with its time and the time
// since the state before. A record sealed before seald kept these times shows the states it passed without
// a time ("not recorded"); the console never guesses one.

// milestone is one row of the timeline.
type milestone struct {
	State seald.State
	At    time.Time // zero: not recorded
	// Since is the time since the previous state, written out; "" for the first, or when either time is
	// not recorded.
	Since string
}

func timeline(r *seald.Record) []milestone {
	var out []milestone
	var prev time.Time
	for i, m := range r.Timeline() {
		row := milestone{State: m.State, At: m.At}
		if i > 0 && !m.At.IsZero() && !prev.IsZero() {
			row.Since = span(m.At.Sub(prev))
		}
		out = append(out, row)
		prev = m.At
	}
	return out
}

// span writes a duration for people: to the millisecond under a second, then in the two largest units.
// Times of one record come from the clocks of the processes that moved it, so a negative span (clocks
// apart) is shown as it is, with its sign.
func span(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "−", -d
	}
	switch {
	case d < time.Second:
		return fmt.Sprintf("%s%d ms", sign, d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%s%.1f s", sign, d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%s%d min %d s", sign, d/time.Minute, d%time.Minute/time.Second)
	case d < 24*time.Hour:
		return fmt.Sprintf("%s%d h %d min", sign, d/time.Hour, d%time.Hour/time.Minute)
	}
	return fmt.Sprintf("%s%d d %d h", sign, d/(24*time.Hour), d%(24*time.Hour)/time.Hour)
}
