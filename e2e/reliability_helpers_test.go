package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/evm"
	"seald.dev/seald/jcs"
)

// The helpers of the reliability tests (crash points, kill -9 under load, outages, soak): requests that may
// meet a dead server, and checks of the end state against the store's API and the chain itself.

// sealResult is the outcome of one seal request that may have met a crash: Status 0 means no answer.
type sealResult struct {
	Data   map[string]any
	Hash   string // canonical hash of Data, computed here so a record without an answer can be looked up
	Ref    string // from the 201, when there was one
	Status int
	Err    error
}

// client is shared by the reliability tests: short timeouts, so a killed server does not hang a client.
var reliabilityClient = &http.Client{Timeout: 30 * time.Second}

// trySeal posts a seal request and returns what came back, an error included, without failing the test.
func trySeal(url, sub, api string, data map[string]any, extra map[string]any) sealResult {
	res := sealResult{Data: data, Hash: canonicalHash(data)}
	body := map[string]any{"data": data, "to": "relying.party@example.com"}
	for k, v := range extra {
		body[k] = v
	}
	j, _ := json.Marshal(body)
	req, err := http.NewRequest("POST", url+authPath, bytes.NewReader(j))
	if err != nil {
		res.Err = err
		return res
	}
	req.Header.Set("Ocp-Apim-Subscription-Key", sub)
	req.Header.Set("Api-Key", api)
	req.Header.Set("Content-Type", "application/json")
	resp, err := reliabilityClient.Do(req)
	if err != nil {
		res.Err = err
		return res
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	res.Status = resp.StatusCode
	if err != nil {
		res.Err = err
		return res
	}
	var env map[string]any
	_ = json.Unmarshal(raw, &env)
	res.Ref = str(env, "data.reference")
	if resp.StatusCode == 201 && res.Ref == "" {
		res.Err = errors.New("201 without a reference: " + string(raw))
	}
	return res
}

// canonicalHash is the record hash seald gives data: SHA-256 of its RFC 8785 form.
func canonicalHash(data map[string]any) string {
	j, _ := json.Marshal(data)
	c, err := jcs.Canonicalize(j)
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:])
}

// tryGet sends an authenticated GET and returns the status (0: no answer) and decoded body.
func tryGet(url, sub, api, path string) (int, map[string]any) {
	req, err := http.NewRequest("GET", url+path, nil)
	if err != nil {
		return 0, nil
	}
	req.Header.Set("Ocp-Apim-Subscription-Key", sub)
	req.Header.Set("Api-Key", api)
	resp, err := reliabilityClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	var env map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&env)
	return resp.StatusCode, env
}

// wait waits for the process to exit by itself and returns its exit code.
func (p *process) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("wait: %v", err)
		}
		return 0
	case <-time.After(timeout):
		p.kill()
		<-done
		t.Fatalf("seald did not exit within %s\n%s", timeout, p.in.logText())
		return -1
	}
}

// completeAll waits until every reference is COMPLETED and checks that token ids are unique and that each
// token verifies back to its own record. It returns the token ids by reference. Eight workers ask at once:
// asked one by one, the thousands of records of the load tests spent most of their test in these requests.
func completeAll(t *testing.T, in *instance, refs []string, timeout time.Duration) map[string]string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	type result struct{ token, problem string }
	results := make([]result, len(refs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(refs); i = int(next.Add(1) - 1) {
				results[i].token, results[i].problem = completed(in, refs[i], deadline)
			}
		})
	}
	wg.Wait()
	tokens := map[string]string{}
	owner := map[string]string{}
	for i, ref := range refs {
		tok, problem := results[i].token, results[i].problem
		if problem != "" {
			t.Fatalf("%s: %s\n%s", ref, problem, in.logText())
		}
		if other, dup := owner[tok]; dup {
			t.Fatalf("token %s given to %s and %s", tok, other, ref)
		}
		owner[tok], tokens[ref] = ref, tok
	}
	return tokens
}

// completed waits until the deadline for a record to be COMPLETED and returns its token id, which it checks
// verifies back to the record, or what is wrong.
func completed(in *instance, ref string, deadline time.Time) (token, problem string) {
	var rec map[string]any
	for {
		code, env := tryGet(in.URL, in.Sub, in.API, "/authentication-status/get/status?reference="+ref)
		if code != 200 {
			return "", fmt.Sprintf("status: %d %v", code, env)
		}
		rec, _ = env["data"].(map[string]any)
		if s := str(rec, "state"); s == "COMPLETED" || s == "FAILED" || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s := str(rec, "state"); s != "COMPLETED" {
		return "", fmt.Sprintf("state %s, want COMPLETED (record %v)", s, rec)
	}
	token = str(rec, "token_id")
	if token == "" {
		return "", fmt.Sprintf("COMPLETED without a token: %v", rec)
	}
	code, env := tryGet(in.URL, in.Sub, in.API, verifyBase+"token-id?token_id="+token+"&blockchain=POLYGON")
	if code != 200 || str(env, "data.details.reference") != ref {
		return "", fmt.Sprintf("token %s verifies as %d %v", token, code, env)
	}
	return token, ""
}

// chainNextTokenID opens the embedded chain of a stopped seald's data dir and reads the contract's next
// token id, the chain's own count of what was minted (a batch minted twice would push it past the records).
func chainNextTokenID(t *testing.T, dataDir string) uint64 {
	t.Helper()
	e, err := evm.OpenEmbedded(filepath.Join(dataDir, "chain"), evm.EmbeddedOptions{})
	if err != nil {
		t.Fatalf("open the embedded chain: %v", err)
	}
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, err := e.Anchorer(ctx, seald.NetworkPolygon)
	if err != nil {
		t.Fatal(err)
	}
	n, err := a.NextTokenID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
