package console_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"seald.dev/seald"
)

// TestRecordTimeline: a record's page lists each pipeline state it reached with its time, to the
// millisecond, and the time since the state before; a record sealed before the times were kept shows the
// states it passed as "not recorded", never with a guessed time.
func TestRecordTimeline(t *testing.T) {
	e := newEnv(t)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rec := &seald.Record{Reference: mine, BusinessID: "biz_1", ProjectID: "prj_1", Status: seald.StatusActive,
		State: seald.StateCompleted, Hash: strings.Repeat("ab", 32), TokenID: 3, BatchID: 1, CID: "bafy", MessageID: "<m>",
		Network: seald.NetworkPolygon, CreatedAt: t0, Reached: seald.StateTimes{IPFSStored: t0.Add(250 * time.Millisecond),
			AnchorSubmitted: t0.Add(1750 * time.Millisecond), Anchored: t0.Add(2*time.Minute + 3*time.Second),
			EmailSent: t0.Add(2*time.Minute + 4*time.Second), Completed: t0.Add(2*time.Minute + 4*time.Second)}}
	e.svc.HistoryFn = func(_ context.Context, c *seald.Caller, ref string) (*seald.Record, []*seald.StatusChange, error) {
		if ref != mine {
			return nil, nil, seald.Errorf(seald.ENOTFOUND, "no record with reference %s", ref)
		}
		return rec, nil, nil
	}
	cookie, _ := e.signIn()
	rows := regexp.MustCompile(`(?s)<tr data-state="([A-Z_]+)">\s*<td>[A-Z_]+</td>\s*<td>(.*?)</td>\s*<td>(.*?)</td>`)
	page := func() [][]string {
		t.Helper()
		w := e.do("GET", "/console/records/"+mine, cookie, nil)
		wantStatus(t, "record page", w, http.StatusOK)
		var out [][]string
		for _, m := range rows.FindAllStringSubmatch(w.Body.String(), -1) {
			out = append(out, m[1:])
		}
		if strings.Contains(w.Body.String(), `A state marked "not recorded"`) != strings.Contains(w.Body.String(), "<td>not recorded</td>") {
			t.Error("the note on states not recorded is shown without one, or missing with one")
		}
		return out
	}
	tm := func(d time.Duration) string {
		at := t0.Add(d)
		return `<time datetime="` + at.Format("2006-01-02T15:04:05.000Z07:00") + `">` + at.Format("2006-01-02 15:04:05.000 UTC") + `</time>`
	}

	want := [][]string{
		{"PENDING", tm(0), ""},
		{"IPFS_STORED", tm(250 * time.Millisecond), "250 ms"},
		{"ANCHOR_SUBMITTED", tm(1750 * time.Millisecond), "1.5 s"},
		{"ANCHORED", tm(2*time.Minute + 3*time.Second), "2 min 1 s"},
		{"EMAIL_SENT", tm(2*time.Minute + 4*time.Second), "1.0 s"},
		{"COMPLETED", tm(2*time.Minute + 4*time.Second), "0 ms"},
	}
	if got := page(); !equalRows(got, want) {
		t.Errorf("timeline =\n%q\nwant\n%q", got, want)
	}

	// Sealed before the times were kept, and anchored after: only ANCHORED has a time of its own.
	rec.Reached = seald.StateTimes{Anchored: t0.Add(time.Hour)}
	rec.State, rec.MessageID = seald.StateAnchored, ""
	want = [][]string{
		{"PENDING", tm(0), ""},
		{"IPFS_STORED", "not recorded", ""},
		{"ANCHOR_SUBMITTED", "not recorded", ""},
		{"ANCHORED", tm(time.Hour), ""},
	}
	if got := page(); !equalRows(got, want) {
		t.Errorf("timeline of an older record =\n%q\nwant\n%q", got, want)
	}
}

func equalRows(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") {
			return false
		}
	}
	return true
}
