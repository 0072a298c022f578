package bench

import (
	"strings"
	"testing"
)

// The list's row takes the slowest page's p95: under 100 ms meets, over it misses naming that page, and a
// failed load or a list not measured never meets.
func TestJudgeConsole(t *testing.T) {
	page := func(name string, p95 float64, errs int64) ConsolePage {
		return ConsolePage{Name: name, Load: Load{Requests: 10, Errors: errs, Latency: Latency{P50: p95 / 2, P95: p95}}}
	}
	for _, tc := range []struct {
		name string
		run  *ConsoleRun
		met  bool
		says string
	}{
		{"fast", &ConsoleRun{Pages: []ConsolePage{page("first page", 3, 0), page("deep page", 9, 0)}}, true, "slowest: deep page, p95 9.0 ms"},
		{"slow", &ConsoleRun{Pages: []ConsolePage{page("first page", 3, 0), page("filter matching none", 240, 0)}}, false, "limited by filter matching none"},
		{"errors", &ConsoleRun{Pages: []ConsolePage{page("first page", 3, 2)}}, false, "2 failed loads"},
		{"not measured", &ConsoleRun{Error: "console sign-in: HTTP status 401, want 303"}, false, "not measured"},
	} {
		r := &Report{Verify: []*VerifyRun{{Store: "sqlite", Records: 1000000, Console: tc.run,
			ByReference: []Load{{Conns: 1, Latency: Latency{P95: 0.5}}}}}}
		r.judgeConsole()
		if len(r.Targets) != 1 {
			t.Fatalf("%s: %d rows", tc.name, len(r.Targets))
		}
		row := r.Targets[0]
		if *row.Met != tc.met || !strings.Contains(row.Figure+" "+row.Verdict, tc.says) {
			t.Errorf("%s: met %v, %q / %q; want met %v and %q", tc.name, *row.Met, row.Figure, row.Verdict, tc.met, tc.says)
		}
		if tc.name == "fast" && (row.Baseline != "verify by reference, 1 conn: p95 0.50 ms" || row.Ratio != 18) {
			t.Errorf("baseline %q, ratio %v; want the same run's lookup by reference and 18", row.Baseline, row.Ratio)
		}
	}
	if md := consoleMarkdown([]*VerifyRun{{Store: "sqlite", Records: 5, Console: &ConsoleRun{Pages: []ConsolePage{page("first page", 3, 0)}}}}); !strings.Contains(md, "| first page (``) | 10 | 1.50 | 3.00 |") {
		t.Errorf("markdown:\n%s", md)
	}
}
