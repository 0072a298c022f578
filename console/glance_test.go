package console_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"seald.dev/seald"
)

// TestGlance draws the project's counts as SVG in the page, with the numbers in a table and the backlog,
// and escapes nothing it should not.
func TestGlance(t *testing.T) {
	e := newEnv(t)
	var asked int
	e.svc.RecordStatsFn = func(_ context.Context, c *seald.Caller, days int) (*seald.RecordStats, error) {
		asked = days
		st := &seald.RecordStats{ByStatus: map[seald.Status]int{seald.StatusActive: 5, seald.StatusRevoked: 2},
			ByState: map[seald.State]int{seald.StateCompleted: 6, seald.StatePending: 1}, Backlog: 1}
		for i := 0; i < days; i++ {
			day := time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC)
			st.Days = append(st.Days, seald.DayCount{Day: day, Count: i % 3})
			lat := seald.DayLatency{Day: day}
			if i%10 == 9 { // three days with records anchored
				lat.Count, lat.Median, lat.P95 = i, time.Duration(i)*time.Second, time.Duration(i)*time.Minute
			}
			lat.Capped = i == 29
			st.Latency = append(st.Latency, lat)
		}
		return st, nil
	}
	cookie, _ := e.signIn()
	w := e.do("GET", "/console/glance", cookie, nil)
	wantStatus(t, "glance", w, http.StatusOK)
	b := w.Body.String()
	if asked != 30 {
		t.Errorf("asked for %d days, want 30", asked)
	}
	if strings.Count(b, "<svg") != 4 || strings.Count(b, `<rect class="bar"`) != 30+3+7 {
		t.Errorf("%d charts, %d bars; want 4 charts and 40 bars", strings.Count(b, "<svg"), strings.Count(b, `<rect class="bar"`))
	}
	// The latency chart: a median and a 95th percentile column for each of the three days with records
	// anchored, none for the others; the slowest 95th percentile tops the scale.
	if m, p := strings.Count(b, `<rect class="median"`), strings.Count(b, `<rect class="p95"`); m != 3 || p != 3 {
		t.Errorf("latency chart: %d median and %d p95 columns, want 3 and 3", m, p)
	}
	for _, want := range []string{`<dd id="total">7</dd>`, `<dd id="backlog">1 still`, "<td>2026-01-30</td><td>2</td>", "<td>REVOKED</td><td>2</td>", "<td>COMPLETED</td><td>6</td>",
		`<text class="tick" x="0" y="12">29 min 0 s</text>`,
		"<td>2026-01-10</td><td>9</td><td>9.0 s</td><td>9 min 0 s</td>",
		"<td>2026-01-30</td><td>29*</td><td>29.0 s</td><td>29 min 0 s</td>",
		"<td>2026-01-01</td><td>0</td><td></td><td></td>",
		"At most 2000 records are read a day", "a day marked * had more"} {
		if !strings.Contains(b, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(b, "<script>") || strings.Contains(b, "style=") {
		t.Error("inline script or style")
	}
}
