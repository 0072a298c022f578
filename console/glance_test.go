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
			st.Days = append(st.Days, seald.DayCount{Day: time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC), Count: i % 3})
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
	if strings.Count(b, "<svg") != 3 || strings.Count(b, `<rect class="bar"`) != 30+3+7 {
		t.Errorf("%d charts, %d bars; want 3 charts and 40 bars", strings.Count(b, "<svg"), strings.Count(b, `<rect class="bar"`))
	}
	for _, want := range []string{`<dd id="total">7</dd>`, `<dd id="backlog">1 still`, "<td>2026-01-30</td><td>2</td>", "<td>REVOKED</td><td>2</td>", "<td>COMPLETED</td><td>6</td>"} {
		if !strings.Contains(b, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(b, "<script>") || strings.Contains(b, "style=") {
		t.Error("inline script or style")
	}
}
