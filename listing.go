package seald

import (
	"time"
)

// MaxListLimit bounds one page of ListRecords.
const MaxListLimit = 100

// ListWalk bounds how many records a page of ListRecords filtered by status or state examines
// (RecordQuery.Walk). Those filters are not in the index the list walks (records_project: project id,
// creation time), so a filter that matches few records would otherwise read the whole project's records to
// fill a page: seconds with a million. 5,000 records are read in a few milliseconds on either store; a page
// that finds fewer matches among them says where to resume (RecordPage.Resume).
const ListWalk = 5000

// States are the pipeline states in order, FAILED last.
var States = []State{StatePending, StateIPFSStored, StateAnchorSubmitted, StateAnchored, StateEmailSent,
	StateCompleted, StateFailed}

// RecordStats is a project's records at a glance: sealed per day, by status and state, and its backlog.
type RecordStats struct {
	Days     []DayCount // oldest first, today (UTC) last
	ByStatus map[Status]int
	ByState  map[State]int
	// Backlog counts the project's records still in the pipeline (WaitingStates).
	Backlog int
	// Latency is how long the records anchored on each day took from sealing to ANCHORED, oldest day first,
	// today (UTC) last: the same days as Days.
	Latency []DayLatency
}

// LatencySample bounds how many records of each day RecordStats reads for the anchoring latency: the first
// anchored that day. A busier day is measured on them alone (DayLatency.Capped), so the cost of the
// statistics never grows with the project.
const LatencySample = 2000

// DayLatency is how long the records anchored on one UTC day took from sealing (CreatedAt) to ANCHORED.
// Only records with a recorded ANCHORED time count (Record.Reached): none sealed before those times were
// kept.
type DayLatency struct {
	Day time.Time
	// Count is how many records were measured (at most LatencySample); Capped, that more were anchored
	// that day and were left out.
	Count  int
	Capped bool
	// Median and P95 are the nearest-rank 50th and 95th percentiles; zero when Count is 0.
	Median, P95 time.Duration
}

// DayCount is the records sealed on one UTC day.
type DayCount struct {
	Day   time.Time
	Count int
}

// MaxStatsDays bounds how many days RecordStats counts.
const MaxStatsDays = 90

// Percentile is the nearest-rank p-th percentile (0 < p <= 100) of sorted: the smallest value that at least
// p percent of them do not exceed; zero for none.
func Percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 * n)
	return sorted[min(max(rank, 1), len(sorted))-1]
}
