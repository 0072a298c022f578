package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Report is everything one run measured; report.json is it, report.md renders it.
type Report struct {
	Command string         `json:"command"`
	Machine Machine        `json:"machine"`
	Config  map[string]any `json:"config"`
	Seconds float64        `json:"seconds"`
	Targets []Target       `json:"targets"`
	Verify  []*VerifyRun   `json:"verify,omitempty"`
	Intake  []*IntakeRun   `json:"intake,omitempty"`
	E2E     *E2ERun        `json:"e2e,omitempty"`
	Writes  []*WritesRun   `json:"writes,omitempty"`
	SD      *SDCost        `json:"sd_at_sealing,omitempty"`
	Peer    *PeerRun       `json:"peer,omitempty"`
	Gas     *GasRun        `json:"gas,omitempty"`
	JCS     *JCSRun        `json:"jcs,omitempty"`
	Notes   []string       `json:"notes"`
	Skipped []string       `json:"skipped,omitempty"`
	Failed  []SectionError `json:"failed,omitempty"`
	Plots   []string       `json:"plots,omitempty"`
}

// SectionError is a section that could not be measured.
type SectionError struct {
	Section string `json:"section"`
	Error   string `json:"error"`
}

// Target is one row of the report's table: a target of issue #8, the figure measured, the baseline of the
// same run, their ratio, and the verdict ("meets", "misses: limited by ...", or "no target").
type Target struct {
	Section  string  `json:"section"`
	Target   string  `json:"target"`
	Figure   string  `json:"figure"`
	Value    float64 `json:"value"`
	Baseline string  `json:"baseline"`
	Ratio    float64 `json:"ratio"`
	Verdict  string  `json:"verdict"`
	Met      *bool   `json:"met,omitempty"`
}

func summary(cfg Config) map[string]any {
	return map[string]any{
		"records": cfg.Records, "duration_s": cfg.Duration.Seconds(), "warmup_s": cfg.Warmup.Seconds(),
		"connections": cfg.Conns, "intake_connections": cfg.IntakeConns, "e2e_offered_per_second": cfg.E2ERate,
		"e2e_steps":      cfg.E2ESteps,
		"e2e_duration_s": cfg.E2EDuration.Seconds(), "e2e_warmup_s": cfg.E2EWarmup.Seconds(),
		"e2e_drain_s": cfg.E2EDrain.Seconds(), "writes_records": cfg.WritesRecords, "jcs_time_s": cfg.JCSTime.Seconds(), "gas_batch_sizes": cfg.GasSizes,
		"sections": cfg.Sections, "postgres": cfg.Postgres != "",
	}
}

func (r *Report) skip(note string) {
	if !slices.Contains(r.Skipped, note) {
		r.Skipped = append(r.Skipped, note)
	}
}

func (r *Report) write(dir string) error {
	r.Plots = plots(r, dir)
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(r.Markdown()), 0o644)
}

// Table renders the targets as a Markdown table.
func (r *Report) Table() string {
	var b strings.Builder
	b.WriteString("| section | target | figure | baseline (same run) | ratio | verdict |\n|---|---|---|---|---|---|\n")
	for _, t := range r.Targets {
		ratio := "—"
		switch {
		case t.Baseline == "—":
		case t.Ratio != 0 && t.Ratio < 0.1:
			ratio = fmt.Sprintf("%.3g", t.Ratio)
		default:
			ratio = fmt.Sprintf("%.2f", t.Ratio)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", t.Section, t.Target, t.Figure, t.Baseline, ratio, t.Verdict)
	}
	return b.String()
}

// Markdown renders the whole report.
func (r *Report) Markdown() string {
	var b strings.Builder
	m := r.Machine
	fmt.Fprintf(&b, "# sealbench\n\n`%s`\n\n", r.Command)
	fmt.Fprintf(&b, "%s, %d cores, %d MB, %s, %s; commit %s; %s; run took %.0f s.\n\n",
		m.CPU, m.Cores, m.MemoryMB, m.GoVersion, m.OS, short(m.Commit), m.Date, r.Seconds)
	b.WriteString(r.Table())
	if len(r.Failed) > 0 {
		b.WriteString("\n## Failed sections\n\n")
		for _, f := range r.Failed {
			fmt.Fprintf(&b, "- %s: %s\n", f.Section, f.Error)
		}
	}
	if len(r.Skipped) > 0 {
		b.WriteString("\n## Skipped\n\n")
		for _, s := range r.Skipped {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	for _, v := range r.Verify {
		fmt.Fprintf(&b, "\n## Verification, %s\n\n%d records preloaded through the bulk path in %.1f s (%.0f/s); "+
			"answers of %d bytes; the ceiling answers the same number of bytes.\n\n", v.Store, v.Records,
			v.PreloadSeconds, v.PreloadRate, v.ResponseBytes)
		b.WriteString("| connections | ceiling req/s (p50/p99 ms) | by hash req/s (p50/p99 ms) | ratio | by reference req/s (p50/p99 ms) | ratio | CPU | peak RSS MB |\n|---|---|---|---|---|---|---|---|\n")
		for i, c := range v.Ceiling {
			h, ref := v.ByHash[i], v.ByReference[i]
			fmt.Fprintf(&b, "| %d | %s | %s | %.2f | %s | %.2f | %.0f%% | %.0f |\n", c.Conns, rateLat(c), rateLat(h),
				h.Rate/c.Rate, rateLat(ref), ref.Rate/c.Rate, 100*ref.CPU, max(h.PeakRSSMB, ref.PeakRSSMB))
		}
	}
	b.WriteString(consoleMarkdown(r.Verify))
	if len(r.Intake) > 0 {
		b.WriteString("\n## Intake (pipeline off: acceptance and durable commit only)\n\n")
		b.WriteString("| store | connections | seald accepted/s (p50/p99 ms) | ceiling req/s | ratio | errors | accepted / in store | CPU | peak RSS MB |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, in := range r.Intake {
			fmt.Fprintf(&b, "| %s | %d | %s | %.0f | %.2f | %d | %d / %d | %.0f%% | %.0f |\n", in.Store, in.Conns,
				rateLat(in.Seald), in.Ceiling.Rate, in.Seald.Rate/in.Ceiling.Rate, in.Seald.Errors, in.Accepted,
				in.Committed, 100*in.Seald.CPU, in.Seald.PeakRSSMB)
		}
	}
	writesMarkdown(&b, r.Writes, r.SD)
	if e := r.E2E; e != nil {
		e.markdown(&b)
	}
	if g := r.Gas; g != nil {
		fmt.Fprintf(&b, "\n## Gas per record (embedded chain, Polygon's fork rules, whole-transaction gas)\n\n"+
			"| batch size | gas per record | with per-token Transfer events | plain ERC-721 mint | ratio |\n|---|---|---|---|---|\n")
		for _, s := range g.Sizes {
			fmt.Fprintf(&b, "| %d | %.0f | %.0f | %d | %.3f |\n", s.Batch, s.PerRecord, s.PerRecordPerToken, g.PlainMint, s.PerRecord/float64(g.PlainMint))
		}
	}
	if j := r.JCS; j != nil {
		passed := 0
		for _, c := range j.Checks {
			if c.Passed {
				passed++
			}
		}
		fmt.Fprintf(&b, "\n## Canonical hashing (MB/s of input, best of 3 interleaved rounds)\n\n"+
			"RFC 8785 checks on seald's canonicalizer: %d of %d pass (jsontext: %s).\n\n", passed, len(j.Checks), j.JSONTextRFC)
		names := []string{ImplSeald, ImplJSONText, ImplGowebpki, ImplCyberphone, ImplSealdCanon, ImplJSONTextCanon, ImplSHA256}
		b.WriteString("| input |")
		for _, n := range names {
			b.WriteString(" " + n + " |")
		}
		b.WriteString(" seald / jsontext | same output |\n|---|" + strings.Repeat("---|", len(names)+2) + "\n")
		for _, s := range j.Sizes {
			fmt.Fprintf(&b, "| %s (%d B) |", s.Name, s.Bytes)
			for _, n := range names {
				fmt.Fprintf(&b, " %.0f |", s.MBps[n])
			}
			fmt.Fprintf(&b, " %.2f | %v |\n", s.MBps[ImplSeald]/s.MBps[ImplJSONText], s.SameOutput)
		}
	}
	if len(r.Plots) > 0 {
		b.WriteString("\n## Plots\n\n")
		for _, p := range r.Plots {
			fmt.Fprintf(&b, "![%s](%s)\n\n", p, p)
		}
	}
	b.WriteString("\n## Notes\n\n")
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	return b.String()
}

// markdown renders the end-to-end section: one row per offered rate, then the states of the last step.
func (e *E2ERun) markdown(b *strings.Builder) {
	max := fmt.Sprintf("%.0f/s", e.SustainedMax)
	if !e.FellBehind {
		max = "at least " + max + " (no step fell behind)"
	}
	fmt.Fprintf(b, "\n## End to end (embedded defaults, pipeline on)\n\n"+
		"The offered rate is stepped on one system until a step falls behind (COMPLETED under %.0f%% of the offered "+
		"rate, acceptance → ANCHORED p95 ≥ %.0f s, errors, or a drain cut short); each step drains before the next. Sustained maximum: "+
		"%s. CPU per record is this process's CPU time (server, store, embedded parts and load generator) in the "+
		"window after warm-up, divided by the records COMPLETED in it.\n\n", 100*e2eKeptUp, e2eP95Target, max)
	b.WriteString("| offered /s | window s | accepted /s | errors | COMPLETED /s | CPU ms per record | ANCHORED p50 / p95 s | " +
		"COMPLETED p95 s | batches | drained after s | CPU (machine) | kept up |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range e.Steps {
		fmt.Fprintf(b, "| %.0f | %.0f (%.0f warm-up) | %.0f | %d | %.0f | %.3f | %.2f / %.2f | %s | %d | %.1f | %.0f%% (%.0f%%) | %v |\n",
			s.OfferedRate, s.Seconds, s.WarmupSeconds, s.AcceptRate, s.Errors, s.CompletedRate, s.CPUPerRecordMs,
			s.Anchor.P50, s.Anchor.P95, completeText(s), s.Batches, s.DrainSeconds, 100*s.CPU, 100*s.MachineCPU, s.KeptUp)
	}
	if n := len(e.Steps); n > 0 {
		s := e.Steps[n-1]
		fmt.Fprintf(b, "\nLast step (%.0f/s): states when submission ended: %s; %d of %d COMPLETED%s. Peak RSS %.0f MB.\n",
			s.OfferedRate, states(s.Backlog), s.Completed, s.Accepted, map[bool]string{true: "", false: " (drain cut short)"}[s.Drained],
			e.PeakRSSMB)
		for _, s := range e.Steps {
			if s.FirstError != "" {
				fmt.Fprintf(b, "\nFirst error at %.0f/s: %s\n", s.OfferedRate, s.FirstError)
			}
		}
	}
}

func completeText(e E2EStep) string {
	if e.Completed == 0 {
		return "none"
	}
	return fmt.Sprintf("%.2f", e.Complete.P95)
}

func rateLat(l Load) string {
	return fmt.Sprintf("%.0f (%.2f/%.2f)", l.Rate, l.Latency.P50, l.Latency.P99)
}

func states(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	if commit == "" {
		return "unknown"
	}
	return commit
}
