package e2e

import (
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestRandomizedStatusRace seals records through three instances on one PostgreSQL database and one geth,
// and changes their status (suspend, activate, revoke, as the rules allow) through random instances at random
// moments of the pipeline: right after the 201, while the batch is open, after COMPLETED. The steps of a
// record run on several instances and the leader at once, so every interleaving of a status change with
// store, anchor, notify, finish and revoke gets a chance. At the end every record is COMPLETED with the
// status last set, and revoked_on_chain agrees with the contract's isRevoked for every token. The seed is
// logged and SEALD_TEST_SEED replays it.
func TestRandomizedStatusRace(t *testing.T) {
	t.Parallel() // its own cluster; it mostly waits on the pipeline
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SEALD_TEST_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (SEALD_TEST_SEED replays it)", seed)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	c := startScaleCluster(t, 3)
	for _, p := range c.procs {
		p.in.httpClient() // made once here, before the goroutines below share each instance
	}
	start := time.Now()

	const records = 48
	type plan struct {
		by      int
		delays  []time.Duration
		targets []string
	}
	plans := make([]plan, records)
	for i := range plans {
		p := plan{by: rng.IntN(3)}
		status := "ACTIVE"
		for range rng.IntN(4) {
			var next string
			switch status {
			case "ACTIVE":
				next = []string{"SUSPENDED", "REVOKED"}[rng.IntN(2)]
			case "SUSPENDED":
				next = []string{"ACTIVE", "REVOKED"}[rng.IntN(2)]
			default:
				continue // REVOKED is final
			}
			p.targets = append(p.targets, next)
			p.delays = append(p.delays, time.Duration(rng.IntN(2500))*time.Millisecond)
			status = next
		}
		plans[i] = p
	}
	// Each record has its own goroutine: seal, then its changes at their moments, each through a random
	// instance.
	refs := make([]string, records)
	last := make([]string, records)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, p := range plans {
		instances := make([]int, len(p.targets))
		for j := range instances {
			instances[j] = rng.IntN(3)
		}
		wg.Go(func() {
			in := c.procs[p.by].in
			r := in.post(authPath, map[string]any{"data": map[string]any{"race": i, "seed": strconv.FormatUint(seed, 10)}, "to": "a@example.com"})
			if r.Status != 201 {
				t.Errorf("seal %d: %d %s", i, r.Status, r.Raw)
				return
			}
			ref := str(r.Body, "data.reference")
			status := "ACTIVE"
			for j, target := range p.targets {
				time.Sleep(p.delays[j])
				u := c.procs[instances[j]].in.callWith("PUT", updatePath, nil, map[string]any{"reference": ref, "status": target, "reason": "race " + strconv.Itoa(j)})
				if u.Status != 200 {
					t.Errorf("%s: %s -> %s on instance %d: %d %s", ref, status, target, instances[j], u.Status, u.Raw)
					return
				}
				status = target
			}
			mu.Lock()
			refs[i], last[i] = ref, status
			mu.Unlock()
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	in := c.procs[0].in
	revoked := 0
	for i, ref := range refs {
		rec := in.waitState(ref, "COMPLETED", 2*time.Minute)
		if got := str(rec, "status"); got != last[i] {
			t.Errorf("%s: status %s, last set %s", ref, got, last[i])
		}
		want := last[i] == "REVOKED"
		if want {
			revoked++
		}
		deadline := time.Now().Add(90 * time.Second)
		var v *response
		for {
			v = in.get(verifyBase + "reference?reference=" + ref + "&proof=1")
			if field(v.Body, "data.blockchain.revoked_on_chain") == want || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		token, _ := strconv.ParseUint(str(v.Body, "data.proof.token_id"), 10, 64)
		onChain := chainRevoked(t, c.geth.URL, c.contract.Hex(), token)
		if field(v.Body, "data.blockchain.revoked_on_chain") != onChain || onChain != want {
			t.Errorf("%s (token %d, last status %s): revoked_on_chain %v, the contract's isRevoked %v",
				ref, token, last[i], field(v.Body, "data.blockchain.revoked_on_chain"), onChain)
		}
	}
	if d := c.queryInt(`SELECT count(*) - count(DISTINCT token_id) FROM records`); d != 0 {
		t.Errorf("%d records share a token id", d)
	}
	t.Logf("%d records, %d revoked, through 3 instances: every record COMPLETED with its last status, revocations on chain as in seald, in %s",
		records, revoked, time.Since(start).Round(time.Millisecond))
}
