package prom_test

import (
	"context"
	"errors"
	"math/big"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"seald.dev/seald"
	"seald.dev/seald/prom"
)

func TestObserverMovesCounters(t *testing.T) {
	m := prom.New(prom.Options{})
	m.Request("GET /healthz", 200, 3*time.Millisecond)
	m.Request("GET /healthz", 0, time.Millisecond)
	m.Request("", 404, time.Millisecond)
	m.StepDone("store", 20*time.Millisecond, nil)
	m.StepDone("store", time.Second, errors.New("kubo down"))
	m.BatchAnchored("POLYGON", 7, 120_000)
	m.BatchAnchored("POLYGON", 3, 80_000)
	m.MailSent(true)
	m.MailSent(true)
	m.MailSent(false)
	m.BlobStored(1000)
	m.BlobStored(24)
	m.Leading("POLYGON", true)

	want := `
# HELP http_requests_total HTTP requests answered, by route pattern and status code.
# TYPE http_requests_total counter
http_requests_total{route="GET /healthz",status="200"} 2
http_requests_total{route="unmatched",status="404"} 1
# HELP seald_mails_total Notification e-mails, by result (sent or failed).
# TYPE seald_mails_total counter
seald_mails_total{result="failed"} 1
seald_mails_total{result="sent"} 2
# HELP seald_gas_used_total Gas used by confirmed anchoring transactions, by network.
# TYPE seald_gas_used_total counter
seald_gas_used_total{network="POLYGON"} 200000
# HELP seald_ipfs_bytes_stored_total Bytes of encrypted envelopes put into IPFS.
# TYPE seald_ipfs_bytes_stored_total counter
seald_ipfs_bytes_stored_total 1024
# HELP seald_anchor_leader 1 while this process is the anchor leader of the network, else 0.
# TYPE seald_anchor_leader gauge
seald_anchor_leader{network="POLYGON"} 1
`
	names := []string{"http_requests_total", "seald_mails_total", "seald_gas_used_total", "seald_ipfs_bytes_stored_total", "seald_anchor_leader"}
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(m.Registry(), "seald_step_duration_seconds"); n != 2 {
		t.Errorf("step series: %d, want 2 (store ok, store error)", n)
	}
	m.Leading("POLYGON", false)
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(`
# HELP seald_anchor_leader 1 while this process is the anchor leader of the network, else 0.
# TYPE seald_anchor_leader gauge
seald_anchor_leader{network="POLYGON"} 0
`), "seald_anchor_leader"); err != nil {
		t.Error(err)
	}
}

func TestScrapeReadsQueueAndBalance(t *testing.T) {
	jobs := map[string]int{"notify": 4, "revoke:POLYGON": 1}
	balanceErr := error(nil)
	m := prom.New(prom.Options{
		Jobs: func(context.Context) (map[string]int, error) { return jobs, nil },
		Balances: map[string]func(context.Context) (*big.Int, error){
			seald.NetworkPolygon: func(context.Context) (*big.Int, error) {
				return new(big.Int).Mul(big.NewInt(15), big.NewInt(1e17)), balanceErr
			},
		},
	})
	want := `
# HELP seald_jobs_queued Pipeline jobs waiting or running, by kind (store, notify, finish, revoke:NETWORK); shared by every instance on one database.
# TYPE seald_jobs_queued gauge
seald_jobs_queued{kind="finish"} 0
seald_jobs_queued{kind="notify"} 4
seald_jobs_queued{kind="revoke:POLYGON"} 1
seald_jobs_queued{kind="store"} 0
# HELP seald_signer_balance_wei Balance of the anchoring key on the network, in wei.
# TYPE seald_signer_balance_wei gauge
seald_signer_balance_wei{network="POLYGON"} 1.5e+18
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), "seald_jobs_queued", "seald_signer_balance_wei"); err != nil {
		t.Error(err)
	}

	// A chain that does not answer leaves the balance out; the rest of the scrape is served.
	balanceErr = errors.New("node down")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	if rec.Code != 200 || strings.Contains(body, "seald_signer_balance_wei{") || !strings.Contains(body, `seald_jobs_queued{kind="notify"} 4`) ||
		!strings.Contains(body, "go_goroutines") || !strings.Contains(body, "process_") {
		t.Errorf("scrape with the chain down: %d\n%s", rec.Code, body)
	}
}

// The oldest failing job of each kind shows as its age; erasure and each network's revocations are present
// at 0 when none fails, so that an alert on them sees the series from the start.
func TestScrapeShowsOverdueJobs(t *testing.T) {
	m := prom.New(prom.Options{
		Failing: func(context.Context) (map[string]time.Time, error) {
			return map[string]time.Time{"revoke:POLYGON": time.Now().Add(-2 * time.Hour)}, nil
		},
		Balances: map[string]func(context.Context) (*big.Int, error){
			seald.NetworkPolygon: func(context.Context) (*big.Int, error) { return big.NewInt(1), nil },
			seald.NetworkEOS:     func(context.Context) (*big.Int, error) { return big.NewInt(1), nil },
		},
	})
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{`seald_jobs_oldest_overdue_seconds{kind="erase"} 0`, `seald_jobs_oldest_overdue_seconds{kind="revoke:EOS"} 0`,
		`seald_jobs_oldest_overdue_seconds{kind="revoke:POLYGON"} 720`} {
		if !strings.Contains(body, want) {
			t.Errorf("no %s in\n%s", want, body)
		}
	}
}

// The backlog intake compares with --max-backlog shows per network, every anchoring network present at 0
// when none waits, beside the limit; with no limit the limit is left out, so an alert dividing by it is silent.
func TestScrapeShowsBacklogPerNetwork(t *testing.T) {
	balances := map[string]func(context.Context) (*big.Int, error){
		seald.NetworkPolygon: func(context.Context) (*big.Int, error) { return big.NewInt(1), nil },
		seald.NetworkEOS:     func(context.Context) (*big.Int, error) { return big.NewInt(1), nil },
	}
	backlog := func(context.Context) (map[string]int, error) { return map[string]int{seald.NetworkEOS: 81000}, nil }
	m := prom.New(prom.Options{Backlog: backlog, MaxBacklog: 100000, Balances: balances})
	want := `
# HELP seald_backlog_limit Waiting records of one network past which intake refuses new records with 503 (--max-backlog); absent when there is no bound.
# TYPE seald_backlog_limit gauge
seald_backlog_limit 100000
# HELP seald_backlog_records Records of each network waiting in the pipeline, the count intake compares with seald_backlog_limit; shared by every instance on one database.
# TYPE seald_backlog_records gauge
seald_backlog_records{network="EOS"} 81000
seald_backlog_records{network="POLYGON"} 0
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), "seald_backlog_records", "seald_backlog_limit"); err != nil {
		t.Error(err)
	}
	unbounded := prom.New(prom.Options{Backlog: backlog, Balances: balances})
	if n, err := testutil.GatherAndCount(unbounded.Registry(), "seald_backlog_limit"); err != nil || n != 0 {
		t.Errorf("seald_backlog_limit without a bound: %d series, %v", n, err)
	}
}
