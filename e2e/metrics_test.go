package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads an instance's /metrics and parses the text exposition format.
func scrape(t *testing.T, baseURL string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(baseURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: %d", resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// sample returns the value of the series of family name whose labels include want (a counter, gauge or
// untyped value, or a histogram's sample count); ok is false when there is no such series.
func sample(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if labels[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		case m.Untyped != nil:
			return m.GetUntyped().GetValue(), true
		}
	}
	return 0, false
}

// TestMetricsAfterSealing seals records through the whole pipeline and checks that /metrics counted them:
// requests by route and status, every step, the batch and its gas, the e-mail, the IPFS bytes, the leader
// gauge, the queue depth and the signer balance.
func TestMetricsAfterSealing(t *testing.T) {
	t.Parallel()
	in := startServe(t, t.TempDir(), nil)
	before := scrape(t, in.URL)
	if v, ok := sample(before, "seald_mails_total", map[string]string{"result": "sent"}); !ok || v != 0 {
		t.Errorf("mails sent before any record: %v %v", v, ok)
	}
	const n = 3
	var refs []string
	for i := range n {
		r := in.post(authPath, map[string]any{"data": map[string]any{"metrics": i}, "to": "a@example.com"})
		if r.Status != 201 {
			t.Fatalf("seal: %d %s", r.Status, r.Raw)
		}
		refs = append(refs, str(r.Body, "data.reference"))
	}
	bad := in.post(authPath, map[string]any{"to": "a@example.com"})
	if bad.Status != 400 {
		t.Fatalf("a seal without data: %d", bad.Status)
	}
	for _, ref := range refs {
		in.waitState(ref, "COMPLETED", 90*time.Second)
	}

	m := scrape(t, in.URL)
	route := "POST " + authPath
	checks := []struct {
		name   string
		labels map[string]string
		min    float64
		max    float64
	}{
		{"http_requests_total", map[string]string{"route": route, "status": "201"}, n, n},
		{"http_requests_total", map[string]string{"route": route, "status": "400"}, 1, 1},
		{"http_request_duration_seconds", map[string]string{"route": route}, n + 1, n + 1},
		{"http_requests_total", map[string]string{"route": "GET " + statusPath, "status": "200"}, n, 1e9},
		{"seald_step_duration_seconds", map[string]string{"step": "store", "result": "ok"}, n, n},
		{"seald_step_duration_seconds", map[string]string{"step": "notify", "result": "ok"}, n, n},
		{"seald_step_duration_seconds", map[string]string{"step": "finish", "result": "ok"}, n, n},
		{"seald_batch_size", map[string]string{"network": "POLYGON"}, 1, n},
		{"seald_gas_used_total", map[string]string{"network": "POLYGON"}, 21000, 1e9},
		{"seald_mails_total", map[string]string{"result": "sent"}, n, n},
		{"seald_mails_total", map[string]string{"result": "failed"}, 0, 0},
		{"seald_ipfs_bytes_stored_total", nil, n * 30, 1e6},
		{"seald_anchor_leader", map[string]string{"network": "POLYGON"}, 1, 1},
		{"seald_jobs_queued", map[string]string{"kind": "store"}, 0, 0},
		{"seald_jobs_queued", map[string]string{"kind": "notify"}, 0, 0},
		{"seald_jobs_queued", map[string]string{"kind": "revoke:POLYGON"}, 0, 0}, // a zero series from the start
		{"seald_signer_balance_wei", map[string]string{"network": "POLYGON"}, 1e18, 1e80},
		{"go_goroutines", nil, 1, 1e6},
		{"process_cpu_seconds_total", nil, 0, 1e6},
	}
	for _, c := range checks {
		v, ok := sample(m, c.name, c.labels)
		if !ok || v < c.min || v > c.max {
			t.Errorf("%s%v = %v (present %v), want within [%v, %v]", c.name, c.labels, v, ok, c.min, c.max)
		}
	}
	// The batch sizes add up to the records: none anchored twice, none left out.
	if f := m["seald_batch_size"]; f != nil {
		var sum float64
		for _, s := range f.GetMetric() {
			sum += s.GetHistogram().GetSampleSum()
		}
		if sum != n {
			t.Errorf("batch sizes sum to %v, want %d", sum, n)
		}
	}

	ready := in.call("GET", "/readyz", "", "", "", nil)
	if ready.Status != 200 || str(ready.Body, "data.store") != "ok" || !strings.HasPrefix(str(ready.Body, "data.chain_polygon"), "ok: ") {
		t.Errorf("readyz: %d %s", ready.Status, ready.Raw)
	}
}

// TestMetricsOff: with --metrics off there is no /metrics route (a JSON 404), and the API still works.
func TestMetricsOff(t *testing.T) {
	t.Parallel()
	in := startServe(t, t.TempDir(), nil, "--metrics", "off")
	r := in.call("GET", "/metrics", "", "", "", nil)
	if r.Status != 404 {
		t.Errorf("GET /metrics with --metrics off: %d %s", r.Status, r.Raw)
	}
	if h := in.call("GET", "/healthz", "", "", "", nil); h.Status != 200 || str(h.Body, "data.status") != "alive" {
		t.Errorf("healthz: %d %s", h.Status, h.Raw)
	}
}
