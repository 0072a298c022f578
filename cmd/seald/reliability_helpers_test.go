package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
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
// token verifies back to its own record. It returns the token ids by reference.
func completeAll(t *testing.T, in *instance, refs []string, timeout time.Duration) map[string]string {
	t.Helper()
	tokens := map[string]string{}
	owner := map[string]string{}
	for _, ref := range refs {
		rec := in.waitState(ref, "COMPLETED", timeout)
		tok := str(rec, "token_id")
		if tok == "" {
			t.Fatalf("%s: COMPLETED without a token: %v", ref, rec)
		}
		if other, dup := owner[tok]; dup {
			t.Fatalf("token %s given to %s and %s", tok, other, ref)
		}
		owner[tok], tokens[ref] = ref, tok
	}
	for tok, ref := range owner {
		v := in.get(verifyBase + "token-id?token_id=" + tok + "&blockchain=POLYGON")
		if v.Status != 200 || str(v.Body, "data.details.reference") != ref {
			t.Fatalf("token %s: %d %s", tok, v.Status, v.Raw)
		}
	}
	return tokens
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
