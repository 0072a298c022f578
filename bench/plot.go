package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// plots draws the report's PNGs into dir and returns their file names. A plot that cannot be drawn is left
// out with a note on stderr: the figures are in report.json either way.
func plots(r *Report, dir string) []string {
	var out []string
	for _, p := range []struct {
		name string
		draw func() (*plot.Plot, error)
	}{
		{"throughput.png", r.throughputPlot},
		{"latency.png", r.latencyPlot},
		{"e2e.png", r.e2ePlot},
	} {
		pl, err := drawPlot(p.draw, filepath.Join(dir, p.name))
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: plot %s: %v\n", p.name, err)
			continue
		}
		if pl != nil {
			out = append(out, p.name)
		}
	}
	return out
}

// drawPlot draws and saves one plot. gonum/plot panics on some data instead of returning an error (a log axis
// whose values are all 1, as with --conns 1: "Values must be greater than 0 for a log scale"); that is an
// error here too, so a plot it cannot draw never loses the report.
func drawPlot(draw func() (*plot.Plot, error), path string) (pl *plot.Plot, err error) {
	defer func() {
		if v := recover(); v != nil {
			pl, err = nil, fmt.Errorf("%v", v)
		}
	}()
	if pl, err = draw(); err == nil && pl != nil {
		err = pl.Save(18*vg.Centimeter, 11*vg.Centimeter, path)
	}
	return pl, err
}

// throughputPlot is requests/s against connections: the ceiling and each verification of each store.
func (r *Report) throughputPlot() (*plot.Plot, error) {
	if len(r.Verify) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.Title.Text = "Verification throughput against concurrency"
	p.X.Label.Text = "connections"
	p.Y.Label.Text = "requests/s"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Y.Min = 0
	xy := func(loads []Load) plotter.XYs {
		pts := make(plotter.XYs, len(loads))
		for i, l := range loads {
			pts[i].X, pts[i].Y = float64(l.Conns), l.Rate
		}
		return pts
	}
	var lines []any
	for _, v := range r.Verify {
		lines = append(lines, "ceiling ("+v.Store+" run)", xy(v.Ceiling),
			v.Store+" by hash", xy(v.ByHash), v.Store+" by reference", xy(v.ByReference))
	}
	return p, plotutil.AddLinePoints(p, lines...)
}

// latencyPlot is the latency distribution at 64 connections (or the highest measured): latency against
// percentile for the ceiling and each verification.
func (r *Report) latencyPlot() (*plot.Plot, error) {
	if len(r.Verify) == 0 {
		return nil, nil
	}
	p := plot.New()
	conns := 0
	var lines []any
	for _, v := range r.Verify {
		c, ok := at(v.Ceiling, verifyConns)
		if !ok {
			c = v.Ceiling[len(v.Ceiling)-1]
		}
		conns = c.Conns
		h, _ := at(v.ByHash, c.Conns)
		ref, _ := at(v.ByReference, c.Conns)
		lines = append(lines, "ceiling ("+v.Store+" run)", cdf(c.samples), v.Store+" by hash", cdf(h.samples),
			v.Store+" by reference", cdf(ref.samples))
	}
	p.Title.Text = fmt.Sprintf("Verification latency distribution at %d connections", conns)
	p.X.Label.Text = "percentile"
	p.Y.Label.Text = "latency (ms, log)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Legend.Left = true
	return p, plotutil.AddLines(p, lines...)
}

// cdf turns sorted samples into at most 200 (percentile, ms) points.
func cdf(sorted []time.Duration) plotter.XYs {
	if len(sorted) == 0 {
		return plotter.XYs{{X: 0, Y: 0.001}}
	}
	const n = 200
	pts := make(plotter.XYs, 0, n)
	for i := range n {
		q := float64(i) / float64(n-1) * 99.9
		k := min(int(q/100*float64(len(sorted))), len(sorted)-1)
		pts = append(pts, plotter.XY{X: q, Y: max(ms(sorted[k]), 0.001)})
	}
	return pts
}

// e2ePlot is acceptances and completions per second over the end-to-end run.
func (r *Report) e2ePlot() (*plot.Plot, error) {
	e := r.E2E
	if e == nil || len(e.Accepts) == 0 {
		return nil, nil
	}
	p := plot.New()
	var rates []string
	for _, s := range e.Steps {
		rates = append(rates, fmt.Sprintf("%.0f", s.OfferedRate))
	}
	p.Title.Text = fmt.Sprintf("End to end: offered %s /s in steps", strings.Join(rates, ", "))
	p.X.Label.Text = "seconds from start of the first step"
	p.Y.Label.Text = "records/s"
	series := func(counts []int) plotter.XYs {
		pts := make(plotter.XYs, len(counts))
		for i, c := range counts {
			pts[i].X, pts[i].Y = float64(i), float64(c)
		}
		return pts
	}
	p.Legend.Top = true
	p.Y.Min = 0
	return p, plotutil.AddLines(p, "accepted", series(e.Accepts), "ANCHORED", series(e.Anchors),
		"COMPLETED", series(e.Completions))
}
