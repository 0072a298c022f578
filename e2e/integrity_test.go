package e2e

import (
	"context"
	"encoding/hex"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	ethcommon "github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald/evm/gethtest"
	"seald.dev/seald/evm/registry"
)

// chainRevoked asks the contract itself, through JSON-RPC, whether a token is revoked.
func chainRevoked(t *testing.T, rpcURL, contract string, token uint64) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reg := registry.NewSealRegistry()
	to := ethcommon.HexToAddress(contract)
	out, err := c.CallContract(ctx, ethereum.CallMsg{To: &to, Data: reg.PackIsRevoked(new(big.Int).SetUint64(token))}, nil)
	if err != nil {
		t.Fatalf("isRevoked(%d): %v", token, err)
	}
	revoked, err := reg.UnpackIsRevoked(out)
	if err != nil {
		t.Fatal(err)
	}
	return revoked
}

// revokeAtOnce seals a record and revokes it in the same breath, before its batch can have been mined, then
// waits for the record to complete and for its revocation to be confirmed: the contract must say revoked.
func revokeAtOnce(t *testing.T, in *instance, rpcURL string) {
	t.Helper()
	r := in.post(authPath, map[string]any{"data": map[string]any{"revoke": "at once", "n": strconv.FormatInt(time.Now().UnixNano(), 10)}, "to": "a@example.com"})
	if r.Status != 201 {
		t.Fatalf("seal: %d %s", r.Status, r.Raw)
	}
	ref := str(r.Body, "data.reference")
	if u := in.callWith("PUT", updatePath, nil, map[string]any{"reference": ref, "status": "REVOKED"}); u.Status != 200 {
		t.Fatalf("revoke: %d %s", u.Status, u.Raw)
	}
	in.waitState(ref, "COMPLETED", 90*time.Second)
	var proof *response
	deadline := time.Now().Add(90 * time.Second)
	for {
		proof = in.get(verifyBase + "reference?reference=" + ref + "&proof=1")
		if field(proof.Body, "data.blockchain.revoked_on_chain") == true || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if field(proof.Body, "data.blockchain.revoked_on_chain") != true {
		t.Fatalf("the revocation never reached the chain: %s\n%s", proof.Raw, in.logText())
	}
	token, err := strconv.ParseUint(str(proof.Body, "data.proof.token_id"), 10, 64)
	if err != nil {
		t.Fatalf("token id: %v in %s", err, proof.Raw)
	}
	if !chainRevoked(t, rpcURL, str(proof.Body, "data.proof.contract"), token) {
		t.Errorf("the contract says token %d of %s is not revoked", token, ref)
	}
}

// TestRevokeBeforeMinedEmbedded revokes records right after the 201 on the embedded chain.
func TestRevokeBeforeMinedEmbedded(t *testing.T) {
	t.Parallel()
	rpcAddr := freePort(t)
	in := startServe(t, t.TempDir(), nil, "--chain-rpc-addr", rpcAddr, "--batch-wait", "1s")
	for range 3 {
		revokeAtOnce(t, in, "http://"+rpcAddr)
	}
}

// TestRevokeBeforeMinedGeth revokes records right after the 201 on geth mining a block a second, so the
// revocation is due while the batch transaction is sent and not yet mined.
func TestRevokeBeforeMinedGeth(t *testing.T) {
	t.Parallel() // it starts its own serve (and chain, browser) and mostly waits on them
	g := gethtest.Start(t, gethtest.Options{Period: 1})
	keyFile := filepath.Join(t.TempDir(), "chain.key")
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(crypto.FromECDSA(g.Key))), 0o600); err != nil {
		t.Fatal(err)
	}
	in := startServe(t, t.TempDir(), nil, "--chain", g.URL, "--chain-key-file", keyFile, "--batch-wait", "300ms")
	for range 3 {
		revokeAtOnce(t, in, g.URL)
	}
}

// TestSameHashAnswersOldestActiveProof: when several records hold one hash, a verification by hash or by data
// answers the caller's own record, else the earliest anchored ACTIVE one, and says how many there are.
func TestSameHashAnswersOldestActiveProof(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := startServe(t, dir, nil)
	a := tenant(t, dir, "--business", "First Co", "--project", "P", "--privacy", "PUBLIC")
	b := tenant(t, dir, "--business", "Second Co", "--project", "P", "--privacy", "PUBLIC")
	data := map[string]any{"diploma": "same", "n": strconv.FormatInt(time.Now().UnixNano(), 10)}
	seal := func(keys map[string]string) string {
		r := in.call("POST", authPath, keys["subscription_key"], keys["api_key"], "application/json", map[string]any{"data": data, "to": "a@example.com"})
		if r.Status != 201 {
			t.Fatalf("seal: %d %s", r.Status, r.Raw)
		}
		ref := str(r.Body, "data.reference")
		deadline := time.Now().Add(60 * time.Second)
		for {
			st := in.call("GET", statusPath+"?reference="+ref, keys["subscription_key"], keys["api_key"], "", nil)
			if str(st.Body, "data.state") == "COMPLETED" {
				return ref
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s not COMPLETED: %s", ref, st.Raw)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	first := seal(a)
	second := seal(a)
	third := seal(b)
	hash := ""
	verify := func(sub, api string) (string, float64) {
		r := in.call("GET", "/verification/api/v1/verify/hash?hash="+hash, sub, api, "", nil)
		if r.Status != 200 {
			t.Fatalf("verify by hash: %d %s", r.Status, r.Raw)
		}
		n, _ := field(r.Body, "data.records_with_hash").(float64)
		return str(r.Body, "data.details.reference"), n
	}
	st := in.call("GET", statusPath+"?reference="+first, a["subscription_key"], a["api_key"], "", nil)
	hash = str(st.Body, "data.hash")

	if ref, n := verify(in.Sub, in.API); ref != first || n != 3 {
		t.Errorf("a third party got %s (%v records); want the earliest anchored %s of 3", ref, n, first)
	}
	if ref, _ := verify(b["subscription_key"], b["api_key"]); ref != third {
		t.Errorf("the owner of %s got %s; want its own record", third, ref)
	}
	if u := in.call("PUT", updatePath, a["subscription_key"], a["api_key"], "application/json", map[string]any{"reference": first, "status": "REVOKED"}); u.Status != 200 {
		t.Fatalf("revoke: %d %s", u.Status, u.Raw)
	}
	if ref, n := verify(in.Sub, in.API); ref != second || n != 3 {
		t.Errorf("with %s revoked a third party got %s (%v records); want the earliest ACTIVE %s", first, ref, n, second)
	}
	r := in.call("POST", "/verification/api/v1/verify/data", in.Sub, in.API, "application/json", map[string]any{"data": data})
	if got := str(r.Body, "data.details.reference"); r.Status != 200 || got != second {
		t.Errorf("verify by data: %d, got %s; want %s", r.Status, got, second)
	}
	if r := in.call("GET", "/verification/api/v1/verify/reference?reference="+second, in.Sub, in.API, "", nil); field(r.Body, "data.records_with_hash") != nil {
		t.Errorf("verify by reference carries records_with_hash: %s", r.Raw)
	}
}

// chainNextToken asks the contract for the id it gives the next minted token.
func chainNextToken(t *testing.T, rpcURL string, contract ethcommon.Address) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reg := registry.NewSealRegistry()
	out, err := c.CallContract(ctx, ethereum.CallMsg{To: &contract, Data: reg.PackNextTokenId()}, nil)
	if err != nil {
		t.Fatalf("nextTokenId: %v", err)
	}
	n, err := reg.UnpackNextTokenId(out)
	if err != nil {
		t.Fatal(err)
	}
	return n.Uint64()
}

// TestStoppedLeaderIsFenced stops the anchor leader with SIGSTOP in the middle of a batch (sent, not yet
// included), as a frozen VM or a long pause would: it neither dies nor answers, and its PostgreSQL session
// keeps the advisory lock. The lock passes on once the server ends the silent session, the other instance
// leads and anchors everything, and when the first wakes (SIGCONT) its leadership's epoch is past: it adds no
// batch and confirms nothing. At the end every token is minted once and held by one record.
func TestStoppedLeaderIsFenced(t *testing.T) {
	t.Parallel() // its own cluster; it mostly waits for PostgreSQL to end the stopped leader's session
	c := startScaleCluster(t, 2)
	seal := func(by, n int) string {
		r := c.procs[by].in.post(authPath, map[string]any{"data": map[string]any{"fence": n, "by": by}, "to": "a@example.com"})
		if r.Status != 201 {
			t.Fatalf("seal on instance %d: %d %s", by, r.Status, r.Raw)
		}
		return str(r.Body, "data.reference")
	}
	var refs []string
	for i := range 4 {
		refs = append(refs, seal(i%2, i))
	}
	for _, ref := range refs {
		c.procs[0].in.waitState(ref, "COMPLETED", 120*time.Second)
	}
	leaders := c.leaders()
	if len(leaders) != 1 {
		t.Fatalf("anchor leaders %v, want exactly one", leaders)
	}
	leader, other := leaders[0], 1-leaders[0]

	// Records keep coming through the other instance until a batch is open, then the leader stops.
	deadline := time.Now().Add(60 * time.Second)
	for i := 4; c.queryInt(`SELECT count(*) FROM batches WHERE state <> 'CONFIRMED'`) == 0; i++ {
		if time.Now().After(deadline) {
			t.Fatal("no batch was ever seen open")
		}
		refs = append(refs, seal(other, i))
		time.Sleep(20 * time.Millisecond)
	}
	c.retire(leader)
	p := c.procs[leader].cmd.Process
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	t.Cleanup(func() { p.Signal(syscall.SIGCONT) })
	for i := range 6 {
		refs = append(refs, seal(other, 100+i))
	}
	deadline = time.Now().Add(120 * time.Second)
	for {
		if l := c.leaders(); len(l) == 1 && l[0] == other {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("instance %d did not take the lead within %s of the leader's stop", other, time.Since(stopped).Round(time.Second))
		}
		time.Sleep(200 * time.Millisecond)
	}
	tookOver := time.Since(stopped)
	for _, ref := range refs {
		c.procs[other].in.waitState(ref, "COMPLETED", 120*time.Second)
	}

	// The first wakes, and records keep coming through both.
	if err := p.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.dead[leader] = false
	c.mu.Unlock()
	for i := range 6 {
		refs = append(refs, seal(i%2, 200+i))
	}
	for _, ref := range refs {
		c.procs[other].in.waitState(ref, "COMPLETED", 120*time.Second)
	}
	records := c.queryInt(`SELECT count(*) FROM records`)
	if d := c.queryInt(`SELECT count(*) - count(DISTINCT token_id) FROM records`); d != 0 {
		t.Errorf("%d records share a token id", d)
	}
	if d := c.queryInt(`SELECT count(*) - count(DISTINCT first_token_id) FROM batches`); d != 0 {
		t.Errorf("%d batches share a first token id", d)
	}
	if next := chainNextToken(t, c.geth.URL, c.contract); next != uint64(records)+1 {
		t.Errorf("the contract's next token id is %d for %d records: a batch was minted twice or lost", next, records)
	}
	if l := c.leaders(); len(l) != 1 {
		t.Errorf("anchor leaders after the wake-up: %v, want one", l)
	}
	t.Logf("%d records; instance %d took the lead %s after instance %d stopped", records, other, tookOver.Round(time.Millisecond), leader)
}

// TestRevertedBatchIsRequeued makes every batch revert on the real (embedded) chain: a gas limit too low for
// the contract's writes lets the transaction in and makes it run out of gas. The batch is FAILED, its record
// goes back to the queue with the revert as its BLOCKCHAIN_ERROR, the metric counts it, and the leader keeps
// anchoring (new batches, new attempts) rather than retrying one batch for ever. Restarted with a sound
// limit, the same data dir anchors the record.
func TestRevertedBatchIsRequeued(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := startServe(t, dir, nil, "--anchor-gas-limit", "30000")
	r := in.post(authPath, map[string]any{"data": map[string]any{"revert": strconv.FormatInt(time.Now().UnixNano(), 10)}, "to": "a@example.com"})
	if r.Status != 201 {
		t.Fatalf("seal: %d %s", r.Status, r.Raw)
	}
	ref := str(r.Body, "data.reference")
	deadline := time.Now().Add(60 * time.Second)
	var failed float64
	for failed < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%v batches failed in a minute, want at least 2 (the leader goes on anchoring)\n%s", failed, in.logText())
		}
		time.Sleep(100 * time.Millisecond)
		failed, _ = sample(scrape(t, in.URL), "seald_batches_failed_total", map[string]string{"network": "POLYGON"})
	}
	st := in.get(statusPath + "?reference=" + ref)
	if str(st.Body, "data.error_type") != "BLOCKCHAIN_ERROR" || !strings.Contains(str(st.Body, "data.error_message"), "failed on chain") {
		t.Errorf("a record of a reverted batch shows %s", st.Raw)
	}
	if s := str(st.Body, "data.state"); s != "IPFS_STORED" && s != "ANCHOR_SUBMITTED" {
		t.Errorf("record in %s, want it queued again (IPFS_STORED or in the next batch)", s)
	}
	if !strings.Contains(in.logText(), "anchoring batch failed on chain") {
		t.Error("no log line names the failed batch")
	}
	in.stop()

	in = startServe(t, dir, nil)
	done := in.waitState(ref, "COMPLETED", 60*time.Second)
	if str(done, "token_id") == "" || str(done, "error_type") != "" {
		t.Errorf("after the restart: %v", done)
	}
	v := in.get(verifyBase + "reference?reference=" + ref + "&proof=1")
	if v.Status != 200 || field(v.Body, "data.proof.token_id") != str(done, "token_id") {
		t.Errorf("verify: %d %s", v.Status, v.Raw)
	}
}

// TestBacklogPushesBack stalls anchoring (every batch runs out of gas on the embedded chain) with
// --max-backlog 3: the records waiting show per state in /metrics with the age of the oldest, and past the
// limit a seal is refused with 503, Retry-After and X-Seald-Backpressure in its envelope, nothing stored.
func TestBacklogPushesBack(t *testing.T) {
	t.Parallel()
	in := startServe(t, t.TempDir(), nil, "--anchor-gas-limit", "30000", "--max-backlog", "3")
	seal := func(n int) *response {
		return in.post(authPath, map[string]any{"data": map[string]any{"backlog": n}, "to": "a@example.com"})
	}
	for i := range 3 {
		if r := seal(i); r.Status != 201 {
			t.Fatalf("seal %d: %d %s", i, r.Status, r.Raw)
		}
	}
	time.Sleep(1100 * time.Millisecond) // the backlog is read at most once a second
	r := seal(99)
	if r.Status != 503 || r.Header.Get("Retry-After") == "" || r.Header.Get("X-Seald-Backpressure") == "" ||
		!strings.Contains(str(r.Body, "error"), "waiting") {
		t.Fatalf("a seal past the backlog: %d %v %s", r.Status, r.Header, r.Raw)
	}
	fams := scrape(t, in.URL)
	var waiting, oldest float64
	for _, st := range []string{"PENDING", "IPFS_STORED", "ANCHOR_SUBMITTED"} {
		n, _ := sample(fams, "seald_records_waiting", map[string]string{"state": st})
		age, _ := sample(fams, "seald_records_oldest_waiting_seconds", map[string]string{"state": st})
		waiting += n
		oldest = max(oldest, age)
	}
	if waiting != 3 || oldest <= 0 {
		t.Errorf("metrics: %v records waiting, oldest %v s; want 3 and an age", waiting, oldest)
	}
	if n, ok := sample(fams, "seald_records_waiting", map[string]string{"state": "EMAIL_SENT"}); !ok || n != 0 {
		t.Errorf("an empty state is %v (present %v), want a 0 series", n, ok)
	}
}
