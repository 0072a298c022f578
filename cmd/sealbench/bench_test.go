package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"seald.dev/seald/bench"
)

// TestBenchTiny runs sealbench on a tiny configuration (200 records, 1 s loads, two connection counts,
// every section, PostgreSQL too when SEALD_TEST_POSTGRES_DSN names a server, as in CI) and checks the
// report: the files exist, the JSON parses and carries every section with positive figures, every target
// has a verdict, and the plots are PNG images. It asserts no timing: speed is the report's business.
func TestBenchTiny(t *testing.T) {
	out := t.TempDir()
	dsn := os.Getenv("SEALD_TEST_POSTGRES_DSN")
	pg := dsn
	if pg == "" {
		pg = "none"
	}
	stdout, err := cli(t, "--quick", "--out", out, "--records", "200", "--duration", "1s",
		"--warmup", "100ms", "--conns", "1,4", "--e2e-duration", "3s", "--e2e-rate", "40", "--e2e-steps", "2", "--writes-records", "40", "--writes-history", "300", "--gas-sizes", "1,4",
		"--jcs-time", "5ms", "--postgres", pg)
	if err != nil {
		t.Fatalf("sealbench: %v\n%s", err, stdout)
	}
	if !strings.Contains(stdout, "| section | target | figure |") {
		t.Errorf("the table is not printed:\n%s", stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep bench.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	if rep.Machine.Cores < 1 || rep.Machine.GoVersion == "" || rep.Machine.Date == "" {
		t.Errorf("machine not described: %+v", rep.Machine)
	}
	if len(rep.Failed) > 0 {
		t.Errorf("failed sections: %+v", rep.Failed)
	}

	wantStores := []string{"sqlite"}
	if dsn != "" {
		wantStores = append(wantStores, "postgres")
	}
	positive := func(what string, l bench.Load) {
		t.Helper()
		if l.Requests <= 0 || l.Rate <= 0 || l.Latency.P50 <= 0 || l.Latency.P99 < l.Latency.P50 || l.Errors != 0 {
			t.Errorf("%s: %+v", what, l)
		}
	}
	if len(rep.Verify) != len(wantStores) {
		t.Fatalf("verify ran on %d stores, want %v", len(rep.Verify), wantStores)
	}
	for i, v := range rep.Verify {
		if v.Store != wantStores[i] || v.Records != 200 || v.ResponseBytes <= 0 || len(v.ByHash) != 2 ||
			len(v.ByReference) != 2 || len(v.Ceiling) != 2 {
			t.Fatalf("verify %d: %+v", i, v)
		}
		for j := range 2 {
			positive(v.Store+" by hash", v.ByHash[j])
			positive(v.Store+" by reference", v.ByReference[j])
			positive(v.Store+" ceiling", v.Ceiling[j])
		}
	}
	if len(rep.Intake) != len(wantStores) {
		t.Fatalf("intake ran on %d stores, want %v", len(rep.Intake), wantStores)
	}
	for _, in := range rep.Intake {
		positive(in.Store+" intake", in.Seald)
		positive(in.Store+" intake ceiling", in.Ceiling)
		if in.Accepted <= 0 || int64(in.Committed) < in.Accepted {
			t.Errorf("%s intake: %d accepted, %d in the store", in.Store, in.Accepted, in.Committed)
		}
	}
	// Each judged seald load ran under the CPU profiler: its file is in the report's directory and the report
	// says where its CPU went.
	for _, in := range rep.Intake {
		file, summary, ok := strings.Cut(in.Seald.Profile, ": ")
		if !ok || !strings.Contains(summary, "CPU s: ") {
			t.Errorf("%s intake profile: %q", in.Store, in.Seald.Profile)
			continue
		}
		if st, err := os.Stat(filepath.Join(out, file)); err != nil || st.Size() == 0 {
			t.Errorf("%s intake profile file %s: %v", in.Store, file, err)
		}
	}
	if e := rep.E2E; e != nil && len(e.Steps) > 0 && !strings.HasPrefix(e.Steps[0].Profile, "profile-e2e-40.pprof: ") {
		t.Errorf("e2e profile: %q", e.Steps[0].Profile)
	}
	// The peer row: measured beside the first intake run when make test built tessera-peer (scripts/test.sh
	// does), with that run's count of entries.
	if p := rep.Peer; p == nil {
		t.Error("no peer row")
	} else if os.Getenv("SEALD_BENCH_TESSERA") != "" {
		if p.NotRunWhy != "" || p.Rate <= 0 || p.Entries != int(rep.Intake[0].Accepted) || p.TreeSize < uint64(p.Entries) ||
			p.Errors != 0 {
			t.Errorf("peer: %+v (intake accepted %d)", p, rep.Intake[0].Accepted)
		}
	} else if p.NotRunWhy == "" {
		t.Errorf("peer measured without a binary: %+v", p)
	}
	// The end-to-end section steps the offered rate (40/s, then 60/s) until one falls behind: a tiny rate
	// keeps up, so both steps ran, each with its CPU per COMPLETED record.
	if e := rep.E2E; e == nil || e.PeakRSSMB <= 0 || e.LoneCount == 0 || e.Lone.P50 <= 0 || len(e.Steps) == 0 {
		t.Errorf("e2e: %+v", rep.E2E)
	} else {
		for i, s := range e.Steps {
			if want := 40 * (1 + float64(i)/2); s.OfferedRate != want || s.Accepted <= 0 || s.Completed <= 0 ||
				s.Anchor.P50 <= 0 || s.Batches <= 0 || s.CPUSeconds <= 0 || s.CPUPerRecordMs <= 0 {
				t.Errorf("e2e step %d: %+v", i, s)
			}
		}
		if e.FellBehind != !e.Steps[len(e.Steps)-1].KeptUp || (!e.FellBehind && (len(e.Steps) != 2 || e.SustainedMax != 60)) {
			t.Errorf("e2e: fell behind %v, sustained %v, steps %+v", e.FellBehind, e.SustainedMax, e.Steps)
		}
	}
	// The writes section sealed its 40 records on each store, new and then holding 300 records, and counted
	// what they wrote, and says which tables and indexes wrote the WAL, the table of the records' states
	// (which every step writes) among them.
	if len(rep.Writes) != 2*len(wantStores) {
		t.Errorf("writes ran %d times, want twice on each of %v", len(rep.Writes), wantStores)
	}
	for i, w := range rep.Writes {
		history := []int{0, 300}[i%2]
		if i/2 >= len(wantStores) || w.Store != wantStores[i/2] || w.History != history || w.Completed != 40 ||
			w.Statements <= 0 || w.Inserted <= 0 || w.WALBytes <= 0 || w.CPUMs <= 0 {
			t.Errorf("writes %d: %+v", i, w)
		}
		var records float64
		for _, s := range w.WALSplit {
			if s.Relation == "record_states" {
				records = s.Bytes
			}
		}
		if w.WALSplitWhy != "" || records <= 0 {
			t.Errorf("%s holding %d: WAL split: %q, %+v", w.Store, w.History, w.WALSplitWhy, w.WALSplit)
		}
	}
	if g := rep.Gas; g == nil || g.PlainMint == 0 || len(g.Sizes) != 2 || g.Sizes[0].PerRecord <= 0 || g.Sizes[1].PerRecord <= 0 {
		t.Errorf("gas: %+v", rep.Gas)
	}
	if j := rep.JCS; j == nil || len(j.Sizes) != 3 || len(j.Checks) == 0 {
		t.Errorf("jcs: %+v", rep.JCS)
	} else {
		for _, c := range j.Checks {
			if !c.Passed {
				t.Errorf("RFC 8785 check %s: %s", c.Name, c.Detail)
			}
		}
		for _, s := range j.Sizes {
			for _, name := range []string{bench.ImplSeald, bench.ImplJSONText, bench.ImplSHA256} {
				if s.MBps[name] <= 0 {
					t.Errorf("jcs %s %s: %v", s.Name, name, s.MBps[name])
				}
			}
		}
	}
	sections := map[string]bool{}
	for _, tg := range rep.Targets {
		if tg.Verdict == "" || tg.Figure == "" || tg.Value < 0 { // 0 is a real figure: nothing completed in a short window
			t.Errorf("target row without a figure or verdict: %+v", tg)
		}
		if tg.Met != nil && !*tg.Met && !strings.HasPrefix(tg.Verdict, "misses: limited by ") {
			t.Errorf("a miss that does not say what limits it: %+v", tg)
		}
		sections[strings.TrimSuffix(strings.Fields(tg.Section)[0], ",")] = true
	}
	for _, s := range []string{"verify", "intake", "end", "gas", "jcs"} {
		if !sections[s] {
			t.Errorf("no target row for %s: %v", s, sections)
		}
	}

	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sealbench --quick", "| section | target |", "## Verification, sqlite", "## Intake",
		"## End to end", "| offered /s |", "## Writes per COMPLETED record", "## Gas per record", "## Canonical hashing", "throughput.png"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if len(rep.Plots) != 3 {
		t.Errorf("plots: %v", rep.Plots)
	}
	for _, p := range rep.Plots {
		f, err := os.Open(filepath.Join(out, p))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() < 100 {
			t.Errorf("%s is not a PNG image: %v", p, err)
		}
	}
}

// A bad flag value is refused before anything runs.
func TestBenchFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--only", "verify,nothing"},
		{"--conns", "1,0"},
		{"--gas-sizes", "x"},
	} {
		if _, err := cli(t, args...); err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
}

// cli runs sealbench with args and the test's environment, and returns what it printed.
func cli(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(t.Context(), args, os.Getenv, &out, &errb)
	return out.String(), err
}
