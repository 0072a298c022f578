package console

import (
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"seald.dev/seald"
)

// At a glance: the project's records sealed per day over the last 30 days, by status and by pipeline state,
// its backlog, and its anchoring latency per day, as charts drawn on the server (SVG in the page: no script,
// no library), each with its numbers in a table beside it for readers who cannot see the chart.

const glanceDays = 30

// bar is one bar of a chart and its row in the table of numbers.
type bar struct {
	Label string
	Count int
}

// chart is one chart: its SVG and the numbers it draws.
type chart struct {
	Title string
	SVG   template.HTML
	Bars  []bar
}

// glanceView is the body of the page.
type glanceView struct {
	Backlog int
	Total   int
	Charts  []chart
	Latency latencyChart
}

// latencyChart is the anchoring latency: per day, the median and 95th percentile of the time from sealing
// to ANCHORED of the records anchored that day, read from at most Sample records a day.
type latencyChart struct {
	SVG    template.HTML
	Days   []latencyDay
	Sample int
	Capped bool // some day had more records than were read
}

// latencyDay is one row of the latency's table.
type latencyDay struct {
	Day         string
	Count       int
	Capped      bool
	Median, P95 string // "" when none was measured
}

func (c *Console) glance(w http.ResponseWriter, r *request) {
	st, err := c.Service.RecordStats(r.Context(), r.caller, glanceDays)
	if err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	var days, statuses, states []bar
	for _, d := range st.Days {
		days = append(days, bar{Label: d.Day.Format("2006-01-02"), Count: d.Count})
	}
	v := glanceView{Backlog: st.Backlog}
	for _, s := range []seald.Status{seald.StatusActive, seald.StatusSuspended, seald.StatusRevoked} {
		statuses = append(statuses, bar{Label: string(s), Count: st.ByStatus[s]})
		v.Total += st.ByStatus[s]
	}
	for _, s := range seald.States {
		states = append(states, bar{Label: string(s), Count: st.ByState[s]})
	}
	v.Charts = []chart{
		{Title: fmt.Sprintf("Sealed per day, last %d days (UTC)", glanceDays), SVG: columns(days), Bars: days},
		{Title: "By status", SVG: rows(statuses), Bars: statuses},
		{Title: "By pipeline state", SVG: rows(states), Bars: states},
	}
	v.Latency = latency(st.Latency)
	c.render(w, r.Request, http.StatusOK, glanceTmpl, c.page(r, "At a glance", v))
}

func latency(days []seald.DayLatency) latencyChart {
	l := latencyChart{Sample: seald.LatencySample, SVG: latencyColumns(days)}
	for _, d := range days {
		row := latencyDay{Day: d.Day.Format("2006-01-02"), Count: d.Count, Capped: d.Capped}
		if d.Count > 0 {
			row.Median, row.P95 = span(d.Median), span(d.P95)
		}
		l.Capped = l.Capped || d.Capped
		l.Days = append(l.Days, row)
	}
	return l
}

// latencyColumns draws, for each day, a column up to the 95th percentile with the median inside it, scaled
// to the slowest day's 95th percentile; a day with nothing measured has none.
func latencyColumns(days []seald.DayLatency) template.HTML {
	const w, h, top, bottom = 600, 200, 16, 24
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" aria-hidden="true" focusable="false">`, w, h)
	var m time.Duration
	for _, d := range days {
		m = max(m, d.P95)
	}
	n := max(len(days), 1)
	step := float64(w) / float64(n)
	scale := func(d time.Duration) float64 {
		if m <= 0 {
			return 0
		}
		return float64(h-top-bottom) * float64(d) / float64(m)
	}
	for i, d := range days {
		if d.Count == 0 {
			continue
		}
		x, label := float64(i)*step+1, d.Day.Format("2006-01-02")
		for _, c := range []struct {
			class string
			v     time.Duration
		}{{"p95", d.P95}, {"median", d.Median}} {
			bh := scale(c.v)
			fmt.Fprintf(&b, `<rect class="%s" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s %s: %s</title></rect>`,
				c.class, x, float64(h-bottom)-bh, step-2, bh, label, c.class, template.HTMLEscapeString(span(c.v)))
		}
	}
	fmt.Fprintf(&b, `<line class="axis" x1="0" y1="%d" x2="%d" y2="%d"></line>`, h-bottom, w, h-bottom)
	if m > 0 {
		fmt.Fprintf(&b, `<text class="tick" x="0" y="12">%s</text>`, template.HTMLEscapeString(span(m)))
	}
	if len(days) > 0 {
		fmt.Fprintf(&b, `<text class="tick" x="0" y="%d">%s</text>`, h-6, days[0].Day.Format("2006-01-02"))
		fmt.Fprintf(&b, `<text class="tick" x="%d" y="%d" text-anchor="end">%s</text>`, w, h-6, days[len(days)-1].Day.Format("2006-01-02"))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func maxCount(bars []bar) int {
	m := 1
	for _, b := range bars {
		m = max(m, b.Count)
	}
	return m
}

// columns draws one vertical bar a day, scaled to the busiest day, with the first and last day named.
// Only numbers and escaped labels go into the SVG.
func columns(bars []bar) template.HTML {
	const w, h, top, bottom = 600, 200, 16, 24
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" aria-hidden="true" focusable="false">`, w, h)
	m, n := maxCount(bars), len(bars)
	if n == 0 {
		n = 1
	}
	step := float64(w) / float64(n)
	for i, x := range bars {
		bh := float64(h-top-bottom) * float64(x.Count) / float64(m)
		fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s: %d</title></rect>`,
			float64(i)*step+1, float64(h-bottom)-bh, step-2, bh, template.HTMLEscapeString(x.Label), x.Count)
	}
	fmt.Fprintf(&b, `<line class="axis" x1="0" y1="%d" x2="%d" y2="%d"></line>`, h-bottom, w, h-bottom)
	fmt.Fprintf(&b, `<text class="tick" x="0" y="12">%d</text>`, m)
	if len(bars) > 0 {
		fmt.Fprintf(&b, `<text class="tick" x="0" y="%d">%s</text>`, h-6, template.HTMLEscapeString(bars[0].Label))
		fmt.Fprintf(&b, `<text class="tick" x="%d" y="%d" text-anchor="end">%s</text>`, w, h-6, template.HTMLEscapeString(bars[len(bars)-1].Label))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// rows draws one horizontal bar a label, scaled to the largest count, with the label and count written.
func rows(bars []bar) template.HTML {
	const w, rowH, labelW = 600, 28, 190
	h := rowH * max(len(bars), 1)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" aria-hidden="true" focusable="false">`, w, h)
	m := maxCount(bars)
	for i, x := range bars {
		bw := float64(w-labelW-60) * float64(x.Count) / float64(m)
		y := i * rowH
		fmt.Fprintf(&b, `<text class="label" x="0" y="%d">%s</text>`, y+19, template.HTMLEscapeString(x.Label))
		fmt.Fprintf(&b, `<rect class="bar" x="%d" y="%d" width="%.1f" height="%d"></rect>`, labelW, y+5, bw, rowH-10)
		fmt.Fprintf(&b, `<text class="label" x="%.1f" y="%d">%d</text>`, float64(labelW)+bw+6, y+19, x.Count)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
