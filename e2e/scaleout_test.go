package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	ethcommon "github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/jackc/pgx/v5"

	"seald.dev/seald"
	"seald.dev/seald/evm"
	"seald.dev/seald/evm/gethtest"
	"seald.dev/seald/ipfs/kubotest"
)

// scaleCluster is three `seald serve` processes of the real binary sharing one PostgreSQL schema, one geth
// chain (one contract, one signer key) and one Kubo daemon.
type scaleCluster struct {
	t     *testing.T
	db    *pgx.Conn
	geth  *gethtest.Geth
	kubo  *kubotest.Daemon
	procs []*process
	dirs  []string
	// contract is the SealRegistry every instance anchors on.
	contract ethcommon.Address

	mu   sync.Mutex
	dead map[int]bool
	// submitting is held (read) for each request of the background submitter, so that an instance can be
	// taken out of the rotation and its last request finished before it is killed: a record accepted by a
	// process killed before it could answer would exist without the test knowing its reference.
	submitting sync.RWMutex
}

// freshPostgresSchema creates a schema of its own on the shared test server (dropped at the end) and returns a
// DSN whose search_path is that schema; the server is never restarted.
func freshPostgresSchema(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("SEALD_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("SEALD_TEST_POSTGRES_DSN is not set: the scale-out test needs PostgreSQL (CI sets it)")
	}
	b := make([]byte, 6)
	rand.Read(b)
	schema := "seald_scaleout_" + hex.EncodeToString(b)
	admin, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(t.Context(), `CREATE SCHEMA `+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, `DROP SCHEMA `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("SEALD_TEST_POSTGRES_DSN must be a postgres:// URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func startScaleCluster(t *testing.T, n int) *scaleCluster {
	t.Helper()
	dsn := freshPostgresSchema(t)
	// A block every second: an anchoring batch stays open (sent, not yet included) long enough for the test
	// to kill its leader in the middle of it.
	g := gethtest.Start(t, gethtest.Options{Period: 1})
	k := kubotest.Start(t)
	ctx := t.Context()

	client, err := ethclient.DialContext(ctx, g.URL)
	if err != nil {
		t.Fatal(err)
	}
	contract, err := evm.Deploy(ctx, client, g.Key)
	client.Close()
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "chain.key")
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(crypto.FromECDSA(g.Key))), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(context.Background()) })

	c := &scaleCluster{t: t, db: db, geth: g, kubo: k, contract: contract, dead: map[int]bool{}}
	bin := buildBinary(t, "")
	args := []string{"--database", dsn, "--ipfs", k.APIURL, "--chain", g.URL, "--chain-key-file", keyFile,
		"--contract", contract.Hex(), "--job-lease", "10s", "--batch-wait", "300ms", "--log-level", "info"}
	for i := range n {
		dir := t.TempDir()
		if i > 0 {
			// Every instance on one database runs with the same secrets; the first start created them.
			for _, f := range []string{"secrets.json", "credentials.json"} {
				b, err := os.ReadFile(filepath.Join(c.dirs[0], f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}
		c.dirs = append(c.dirs, dir)
		c.procs = append(c.procs, startProcess(t, bin, dir, nil, args...))
	}
	return c
}

// live returns the indexes of the instances not killed.
func (c *scaleCluster) live() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []int
	for i := range c.procs {
		if !c.dead[i] {
			out = append(out, i)
		}
	}
	return out
}

// retire takes instance i out of the rotation and waits for the request in flight.
func (c *scaleCluster) retire(i int) {
	c.mu.Lock()
	c.dead[i] = true
	c.mu.Unlock()
	// A barrier, not a critical section: taking the write lock waits for every request in flight (each holds
	// the read lock), and later ones no longer pick instance i.
	c.submitting.Lock()
	//lint:ignore SA2001 the lock is a barrier: see above
	c.submitting.Unlock()
}

// leaders scrapes the live instances and returns those that report themselves the POLYGON anchor leader.
func (c *scaleCluster) leaders() []int {
	var out []int
	for _, i := range c.live() {
		if v, _ := sample(scrape(c.t, c.procs[i].in.URL), "seald_anchor_leader", map[string]string{"network": "POLYGON"}); v == 1 {
			out = append(out, i)
		}
	}
	return out
}

// metricSum adds a series over the given instances.
func (c *scaleCluster) metricSum(idx []int, name string, labels map[string]string) float64 {
	var sum float64
	for _, i := range idx {
		v, _ := sample(scrape(c.t, c.procs[i].in.URL), name, labels)
		sum += v
	}
	return sum
}

// mails lists, for each reference, the instances whose outbox holds a message of it (each instance once, as
// when the outbox kept one file per record: these tests count sends across instances).
func (c *scaleCluster) mails() map[string][]int {
	out := map[string][]int{}
	for i, dir := range c.dirs {
		for _, m := range outboxMessages(c.t, dir) {
			if !slices.Contains(out[m.Reference], i) {
				out[m.Reference] = append(out[m.Reference], i)
			}
		}
	}
	return out
}

func (c *scaleCluster) queryInt(sql string) int {
	c.t.Helper()
	var n int
	if err := c.db.QueryRow(c.t.Context(), sql).Scan(&n); err != nil {
		c.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func (c *scaleCluster) pins() int {
	c.t.Helper()
	out, err := c.kubo.Run("pin", "ls", "--type=recursive", "--quiet")
	if err != nil {
		c.t.Fatalf("kubo pin ls: %v %s", err, out)
	}
	return len(strings.Fields(string(out)))
}

// submitted is one accepted record and the instance that accepted it.
type submitted struct {
	ref string
	by  int
}

// TestScaleOut runs three seald processes on one PostgreSQL, one geth and one Kubo. Each accepts and
// verifies; the work is shared and every job runs once; one instance leads anchoring; when it is killed
// with SIGKILL in the middle of a batch, another takes over and neither loses nor doubles a batch.
func TestScaleOut(t *testing.T) {
	t.Parallel() // it starts its own serve (and chain, browser) and mostly waits on them
	c := startScaleCluster(t, 3)
	pinsBefore := c.pins()
	var recs []submitted
	seal := func(by, n int) *response {
		in := c.procs[by].in
		return in.post(authPath, map[string]any{"data": map[string]any{"scale": n, "by": by}, "to": "a@example.com"})
	}

	// Phase 1: no fault. Records go round-robin to all three; each is verified through another instance.
	const n1 = 15
	for i := range n1 {
		r := seal(i%3, i)
		if r.Status != 201 {
			t.Fatalf("seal on instance %d: %d %s", i%3, r.Status, r.Raw)
		}
		recs = append(recs, submitted{str(r.Body, "data.reference"), i % 3})
	}
	for _, s := range recs {
		other := c.procs[(s.by+1)%3].in
		other.waitState(s.ref, "COMPLETED", 120*time.Second)
		v := other.get(verifyBase + "reference?reference=" + s.ref)
		if v.Status != 200 || str(v.Body, "data.details.reference") != s.ref {
			t.Fatalf("verify %s on instance %d: %d %s", s.ref, (s.by+1)%3, v.Status, v.Raw)
		}
	}
	all := []int{0, 1, 2}
	leaders := c.leaders()
	if len(leaders) != 1 {
		t.Fatalf("anchor leaders %v, want exactly one", leaders)
	}
	// Every job ran once: each step succeeded once per record across the three instances and never failed
	// (a second run, even one fenced off by the lease, would show), one e-mail and one IPFS pin per record.
	ran := map[int]bool{}
	for _, step := range []string{"store", "notify", "finish"} {
		if ok := c.metricSum(all, "seald_step_duration_seconds", map[string]string{"step": step, "result": "ok"}); ok != n1 {
			t.Errorf("step %s succeeded %v times for %d records", step, ok, n1)
		}
		if bad := c.metricSum(all, "seald_step_duration_seconds", map[string]string{"step": step, "result": "error"}); bad != 0 {
			t.Errorf("step %s failed %v times", step, bad)
		}
		for _, i := range all {
			if v, _ := sample(scrape(t, c.procs[i].in.URL), "seald_step_duration_seconds", map[string]string{"step": step, "result": "ok"}); v > 0 {
				ran[i] = true
			}
		}
	}
	if sent := c.metricSum(all, "seald_mails_total", map[string]string{"result": "sent"}); sent != n1 {
		t.Errorf("%v e-mails sent for %d records", sent, n1)
	}
	if len(ran) < 2 {
		t.Errorf("only instances %v ran pipeline steps: the work is not shared", ran)
	}
	for ref, holders := range c.mails() {
		if len(holders) != 1 {
			t.Errorf("%s: e-mails in the outboxes of instances %v", ref, holders)
		}
	}
	if got := c.pins() - pinsBefore; got != n1 {
		t.Errorf("%d envelopes pinned in Kubo for %d records", got, n1)
	}
	t.Logf("phase 1: %d records; leader: instance %d; instances that ran steps: %v", n1, leaders[0], ran)

	// Phase 2: records keep coming to every live instance while the leader is killed with SIGKILL in the
	// middle of a batch (signed or sent, not yet included).
	leader := leaders[0]
	var mu sync.Mutex
	stop := make(chan struct{})
	done := make(chan struct{})
	accepted := 0
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			c.submitting.RLock()
			live := c.live()
			by := live[i%len(live)]
			ref, err := postSeal(c.procs[by].in, map[string]any{"data": map[string]any{"scale": n1 + i, "by": by}, "to": "a@example.com"})
			c.submitting.RUnlock()
			if err != nil {
				t.Errorf("seal on instance %d: %v", by, err)
				return
			}
			mu.Lock()
			recs = append(recs, submitted{ref, by})
			accepted++
			mu.Unlock()
			time.Sleep(40 * time.Millisecond)
		}
	}()
	c.retire(leader)
	deadline := time.Now().Add(90 * time.Second)
	for c.queryInt(`SELECT count(*) FROM batches WHERE state <> 'CONFIRMED'`) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no batch was ever seen open")
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.procs[leader].kill()
	mu.Lock()
	atKill := accepted
	mu.Unlock()
	t.Logf("killed the leader, instance %d, with a batch open after %d more records", leader, atKill)

	// A survivor takes over; never more than one leads.
	var newLeader = -1
	deadline = time.Now().Add(60 * time.Second)
	for newLeader < 0 {
		l := c.leaders()
		if len(l) > 1 {
			t.Fatalf("two leaders at once: %v", l)
		}
		if len(l) == 1 {
			newLeader = l[0]
		}
		if time.Now().After(deadline) {
			t.Fatal("no instance took the anchor leadership over")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Keep submitting for a while under the new leader.
	for {
		mu.Lock()
		more := accepted - atKill
		mu.Unlock()
		if more >= 15 {
			break
		}
		if l := c.leaders(); len(l) != 1 || l[0] != newLeader {
			t.Fatalf("leaders %v after the takeover by %d", l, newLeader)
		}
		time.Sleep(50 * time.Millisecond)
	}
	close(stop)
	<-done

	// Every accepted record completes, seen through a live instance other than the one that accepted it.
	live := c.live()
	tokens := map[uint64]string{}
	for i, s := range recs {
		in := c.procs[live[i%len(live)]].in
		if live[i%len(live)] == s.by {
			in = c.procs[live[(i+1)%len(live)]].in
		}
		rec := in.waitState(s.ref, "COMPLETED", 120*time.Second)
		tok, err := strconv.ParseUint(str(rec, "token_id"), 10, 64)
		if err != nil {
			t.Fatalf("%s: token id %q", s.ref, str(rec, "token_id"))
		}
		if other, dup := tokens[tok]; dup {
			t.Fatalf("token %d given to %s and %s", tok, other, s.ref)
		}
		tokens[tok] = s.ref
	}
	total := len(recs)
	for id := uint64(1); id <= uint64(total); id++ {
		if _, ok := tokens[id]; !ok {
			t.Errorf("token %d missing: the token ids of %d records are not 1..%d", id, total, total)
		}
	}

	// The batches tile 1..total with no gap or overlap, all confirmed; the chain minted exactly that many
	// tokens, and the signer sent exactly one transaction per batch after the deployment.
	rows, err := c.db.Query(t.Context(), `SELECT first_token_id, count, state, nonce FROM batches WHERE network = 'POLYGON' ORDER BY first_token_id`)
	if err != nil {
		t.Fatal(err)
	}
	next, batches := uint64(1), 0
	nonces := map[uint64]bool{}
	for rows.Next() {
		var first, nonce uint64
		var count int
		var state string
		if err := rows.Scan(&first, &count, &state, &nonce); err != nil {
			t.Fatal(err)
		}
		if first != next || state != string(seald.BatchConfirmed) || nonces[nonce] {
			t.Errorf("batch from token %d (%d records, %s, nonce %d); want from %d, CONFIRMED, a nonce of its own", first, count, state, nonce, next)
		}
		nonces[nonce] = true
		next = first + uint64(count)
		batches++
	}
	rows.Close()
	if next != uint64(total)+1 {
		t.Errorf("the batches end before token %d, want %d", next, total+1)
	}
	a, err := evm.DialAnchorer(t.Context(), c.geth.URL, c.contract, c.geth.Key, seald.NetworkPolygon, evm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if onChain, err := a.NextTokenID(t.Context()); err != nil || onChain != uint64(total)+1 {
		t.Errorf("the chain's next token id is %d (%v), want %d", onChain, err, total+1)
	}
	client, err := ethclient.DialContext(t.Context(), c.geth.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if nonce, err := client.NonceAt(t.Context(), c.geth.Address, nil); err != nil || nonce != uint64(batches)+1 {
		t.Errorf("the signer sent %d transactions (%v), want the deployment and %d batches", nonce, err, batches)
	}

	// Every job ran once, except where the killed instance died between a side effect and its save (the
	// documented crash window): only then may a second e-mail or envelope exist, and one copy is the dead
	// instance's.
	dupMails := 0
	mails := c.mails()
	for _, s := range recs {
		holders := mails[s.ref]
		switch {
		case len(holders) == 1:
		case len(holders) == 2 && (holders[0] == leader || holders[1] == leader):
			dupMails++
		default:
			t.Errorf("%s: e-mails in the outboxes of instances %v", s.ref, holders)
		}
	}
	extraPins := c.pins() - pinsBefore - total
	if extraPins < 0 || extraPins > 8 {
		t.Errorf("%d envelopes pinned for %d records", extraPins+total, total)
	}
	if dupMails > 8 {
		t.Errorf("%d records e-mailed twice; at most the killed instance's 8 workers were mid-step", dupMails)
	}
	if jobs := c.queryInt(`SELECT count(*) FROM jobs`); jobs != 0 {
		t.Errorf("%d jobs left", jobs)
	}
	if unpinned := c.queryInt(`SELECT count(*) FROM records WHERE cid IS NULL OR cid = ''`); unpinned != 0 {
		t.Errorf("%d records without a CID", unpinned)
	}

	// Leadership was taken twice in all: at start and once after the kill.
	takes := 0
	for _, p := range c.procs {
		takes += strings.Count(p.in.logText(), `"msg":"anchor leader"`)
	}
	if takes != 2 {
		t.Errorf("the anchor leadership was taken %d times, want 2 (at start, after the kill)", takes)
	}
	t.Logf("phase 2: %d records in all, %d batches; leader %d killed, %d took over; duplicates from the crash window: %d e-mails, %d envelopes",
		total, batches, leader, newLeader, dupMails, extraPins)
}

// postSeal seals data on an instance and returns the reference, with errors returned rather than fatal, for
// use off the test's goroutine.
func postSeal(in *instance, body map[string]any) (string, error) {
	j, _ := json.Marshal(body)
	req, err := http.NewRequest("POST", in.URL+authPath, bytes.NewReader(j))
	if err != nil {
		return "", err
	}
	req.Header.Set("Ocp-Apim-Subscription-Key", in.Sub)
	req.Header.Set("Api-Key", in.API)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	if resp.StatusCode != 201 || str(out, "data.reference") == "" {
		return "", fmt.Errorf("%d %s", resp.StatusCode, raw)
	}
	return str(out, "data.reference"), nil
}
