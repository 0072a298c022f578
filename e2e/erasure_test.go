package e2e

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/ipfs"
	"seald.dev/seald/ipfs/kubotest"
)

// sealAndComplete seals one record as the instance's default tenant and waits for it to complete; it
// returns its reference, hash, CID and data.
func sealAndComplete(t *testing.T, in *instance, data map[string]any) (ref, hash, cid string) {
	t.Helper()
	r := in.post(authPath, map[string]any{"data": data, "to": "holder@example.com"})
	if r.Status != 201 {
		t.Fatalf("seal: %d %s", r.Status, r.Raw)
	}
	ref, hash = str(r.Body, "data.reference"), str(r.Body, "data.hash")
	st := in.waitState(ref, "COMPLETED", 90*time.Second)
	return ref, hash, str(st, "cid")
}

// waitGatewayGone waits until seald's gateway stops serving cid and returns the status it answers.
func waitGatewayGone(t *testing.T, in *instance, cid string) int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if code, _ := fetch(t, in.URL+"/ipfs/"+cid); code != 200 {
			return code
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the gateway still serves %s\n%s", cid, in.logText())
	return 0
}

// checkErased checks what an erased record still answers: the status and verification by every identifier
// (with erased_time and is_data_downloadable false), and the 410 of download.
func checkErased(t *testing.T, in *instance, ref, hash, cid string, data map[string]any) string {
	t.Helper()
	st := in.get("/authentication-status/get/status?reference=" + ref)
	erasedTime := str(st.Body, "data.erased_time")
	if st.Status != 200 || !timeFormat.MatchString(erasedTime) || str(st.Body, "data.status") != "ACTIVE" ||
		str(st.Body, "data.state") != "COMPLETED" || str(st.Body, "data.hash") != hash {
		t.Errorf("status of the erased record: %d %s", st.Status, st.Raw)
	}
	token := str(st.Body, "data.token_id")
	for name, r := range map[string]*response{
		"reference": in.get(verifyBase + "reference?reference=" + ref),
		"hash":      in.get(verifyBase + "hash?hash=" + hash),
		"cid":       in.get(verifyBase + "cid?cid=" + cid),
		"token id":  in.get(verifyBase + "token-id?token_id=" + token + "&network=POLYGON"),
		"data":      in.post(verifyBase+"data", map[string]any{"data": data}),
	} {
		if r.Status != 200 || str(r.Body, "data.details.reference") != ref || field(r.Body, "data.is_data_downloadable") != false ||
			str(r.Body, "data.erased_time") != erasedTime {
			t.Errorf("verify by %s after erasure: %d %s", name, r.Status, r.Raw)
		}
	}
	dl := in.get("/svc-data/data/download?reference=" + ref)
	if dl.Status != 410 || field(dl.Body, "success") != false || !strings.Contains(str(dl.Body, "error"), "erased") {
		t.Errorf("download of the erased record: %d %s, want 410 in the JSON envelope", dl.Status, dl.Raw)
	}
	return erasedTime
}

// TestErasure erases a record on the embedded defaults: its copy leaves the IPFS store, download is 410, and
// verification by every identifier and the proof bundle (`seald proof verify`) still pass; a second erasure
// changes nothing, another business and an unknown reference get 404, and a bad retention 400.
func TestErasure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rpc := freePort(t)
	in := startServe(t, dir, nil, "--chain-rpc-addr", rpc)
	data := map[string]any{"diploma": "MSc", "holder": "Ada"}
	ref, hash, cid := sealAndComplete(t, in, data)
	if code, _ := fetch(t, in.URL+"/ipfs/"+cid); code != 200 {
		t.Fatalf("gateway before erasure of %q: %d", cid, code)
	}
	if dl := in.get("/svc-data/data/download?reference=" + ref); dl.Status != 200 {
		t.Fatalf("download before erasure: %d %s", dl.Status, dl.Raw)
	}
	proof := in.get(verifyBase + "reference?reference=" + ref + "&proof=1")
	bundle, _ := json.Marshal(field(proof.Body, "data.proof"))
	_, trustDoc := fetch(t, in.URL+"/.well-known/seald-trust.json")

	other := tenant(t, dir, "--business", "Other", "--project", "P")
	if r := in.call("POST", "/authentication/erase", other["subscription_key"], other["api_key"], "application/json",
		map[string]any{"reference": ref, "reason": "not mine"}); r.Status != 404 {
		t.Errorf("erasure by another business: %d %s, want 404", r.Status, r.Raw)
	}
	if r := in.post("/authentication/erase", map[string]any{"reference": "D-00000000-0000-4000-8000-000000000000", "reason": "x"}); r.Status != 404 {
		t.Errorf("erasure of an unknown reference: %d %s, want 404", r.Status, r.Raw)
	}
	if r := in.post("/authentication/erase", map[string]any{"reference": ref}); r.Status != 400 || !strings.Contains(string(r.Raw), "reason") {
		t.Errorf("erasure without a reason: %d %s, want 400 naming reason", r.Status, r.Raw)
	}
	if r := in.post("/authentication/erase", map[string]any{"reference": ref, "reason": "x", "extra": 1}); r.Status != 400 || !strings.Contains(string(r.Raw), "extra") {
		t.Errorf("erasure with an unknown member: %d %s, want 400 naming it", r.Status, r.Raw)
	}
	if st := in.get("/authentication-status/get/status?reference=" + ref); field(st.Body, "data.erased_time") != nil {
		t.Fatalf("refused erasures erased the record: %s", st.Raw)
	}

	r := in.post("/authentication/erase", map[string]any{"reference": ref, "reason": "the holder asked (ticket 42)"})
	if r.Status != 200 || field(r.Body, "data.is_data_downloadable") != false || !timeFormat.MatchString(str(r.Body, "data.erased_time")) ||
		str(r.Body, "data.status") != "ACTIVE" {
		t.Fatalf("erase: %d %s", r.Status, r.Raw)
	}
	if code := waitGatewayGone(t, in, cid); code != 410 {
		t.Errorf("gateway after erasure: %d, want 410 (docs/api.md)", code)
	}
	erasedTime := checkErased(t, in, ref, hash, cid, data)

	// `seald status` and `seald verify` say so too, and the public page (issue 32).
	for _, args := range [][]string{{"status", ref}, {"verify", "--reference", ref}} {
		var out, errb strings.Builder
		err := run(t.Context(), append(args, "--url", in.URL, "--data-dir", dir), func(string) string { return "" }, &out, &errb)
		if err != nil || !strings.Contains(out.String(), "erased") || !strings.Contains(out.String(), erasedTime+" (the data and its stored copy were deleted") {
			t.Errorf("seald %s after erasure: %v\n%s%s", args[0], err, out.String(), errb.String())
		}
	}
	if code, page := fetch(t, in.URL+"/v/"+ref); code != 200 || !strings.Contains(string(page), "The data was erased") ||
		strings.Contains(string(page), "only its owner can read it") || strings.Contains(string(page), "/ipfs/"+cid+`"`) {
		t.Errorf("page of the erased record: %d\n%s", code, page)
	}

	again := in.post("/authentication/erase", map[string]any{"reference": ref, "reason": "again"})
	if again.Status != 200 || str(again.Body, "data.erased_time") != erasedTime || !strings.Contains(str(again.Body, "data.msg"), "already") {
		t.Errorf("second erasure: %d %s, want 200 with the first erasure's time", again.Status, again.Raw)
	}
	h := in.get("/authentication-status/history?reference=" + ref)
	changes, _ := field(h.Body, "data.changes").([]any)
	if len(changes) != 1 || str(changes[0], "action") != "erase" || str(changes[0], "reason") != "the holder asked (ticket 42)" {
		t.Errorf("audit trail after two erasures: %s, want one erase entry", h.Raw)
	}

	out, code, err := proofCLI(t, writeTemp(t, "p.json", bundle), "--rpc", "http://"+rpc, "--trust", writeTemp(t, "trust.json", trustDoc))
	if code != 0 {
		t.Errorf("seald proof verify after erasure: exit %d %v\n%s", code, err, out)
	}
	after := in.get(verifyBase + "reference?reference=" + ref + "&proof=1")
	bundle2, _ := json.Marshal(field(after.Body, "data.proof"))
	if out, code, err := proofCLI(t, writeTemp(t, "p2.json", bundle2), "--rpc", "http://"+rpc, "--trust", writeTemp(t, "trust2.json", trustDoc)); code != 0 {
		t.Errorf("seald proof verify of the bundle served after erasure: exit %d %v\n%s", code, err, out)
	}

	t.Run("retention must be a positive duration", func(t *testing.T) {
		for _, bad := range []string{"0", "-5d", "soon", "0s", "1.5d"} {
			r := in.call("PUT", "/tenant/update", in.Sub, in.API, "application/json", map[string]any{"retain": bad})
			if r.Status != 400 || !strings.Contains(str(r.Body, "error"), "retain") {
				t.Errorf("retain %q: %d %s, want 400 naming retain", bad, r.Status, r.Raw)
			}
		}
		r := in.call("PUT", "/tenant/update", in.Sub, in.API, "application/json", map[string]any{"retain": "365d"})
		if r.Status != 200 || str(r.Body, "data.project.retain") != "365d" {
			t.Errorf("retain 365d: %d %s", r.Status, r.Raw)
		}
		var out, errb strings.Builder
		err := run(t.Context(), []string{"tenant", "create", "--data-dir", dir, "--business", "R", "--project", "R", "--retain", "-1d"},
			func(string) string { return "" }, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), "retain") {
			t.Errorf("tenant create --retain -1d: %v, want an error naming retain", err)
		}
	})
}

// TestErasureKubo erases a record stored on a real Kubo daemon: it is unpinned there, seald's gateway no longer
// serves it, download is 410 and verification still answers; pinned again while serve is stopped, the sweep at
// the next start unpins it again.
func TestErasureKubo(t *testing.T) {
	t.Parallel()
	kubo := kubotest.Start(t)
	in := startServe(t, t.TempDir(), nil, "--ipfs", kubo.APIURL)
	data := map[string]any{"payslip": "2026-10", "net": 1234}
	ref, hash, cid := sealAndComplete(t, in, data)
	if pins, err := kubo.Run("pin", "ls", "--type=recursive", cid); err != nil || !strings.Contains(string(pins), cid) {
		t.Fatalf("Kubo does not pin %s before erasure: %v %s", cid, err, pins)
	}
	if r := in.post("/authentication/erase", map[string]any{"reference": ref, "reason": "retention"}); r.Status != 200 {
		t.Fatalf("erase: %d %s", r.Status, r.Raw)
	}
	if code := waitGatewayGone(t, in, cid); code != 410 {
		t.Errorf("gateway after erasure: %d, want 410 (docs/api.md)", code)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		pins, _ := kubo.Run("pin", "ls", "--type=recursive")
		if !strings.Contains(string(pins), cid) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Kubo still pins %s after the erasure\n%s", cid, in.logText())
		}
		time.Sleep(50 * time.Millisecond)
	}
	checkErased(t, in, ref, hash, cid, data)

	// The copy pinned again behind seald's back (a restore of the node, an operator's pin) is found by the
	// sweep at the next start and unpinned again.
	dir := in.DataDir
	in.stop()
	if out, err := kubo.Run("pin", "add", cid); err != nil {
		t.Fatalf("ipfs pin add: %v %s", err, out)
	}
	in = startServe(t, dir, nil, "--ipfs", kubo.APIURL)
	for deadline := time.Now().Add(60 * time.Second); ; {
		pins, _ := kubo.Run("pin", "ls", "--type=recursive")
		if !strings.Contains(string(pins), cid) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sweep at start left %s pinned on Kubo\n%s", cid, in.logText())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(in.logText(), "erasure queued again") {
		t.Errorf("the restart did not log the erasure queued again\n%s", in.logText())
	}
}

// TestEraseKill9 kills the binary (as kill -9 would) right after an erasure is committed, before its stored
// copy is deleted, and checks that the copy was still there and that the restart deletes it.
func TestEraseKill9(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "crashtest")
	for _, point := range []string{seald.CrashAfterEraseSave, seald.CrashAfterBlobDelete} {
		t.Run(point, func(t *testing.T) {
			dir := t.TempDir()
			p := startProcess(t, bin, dir, []string{"SEALD_CRASH_AT=" + point})
			data := map[string]any{"id": point}
			ref, hash, cid := sealAndComplete(t, p.in, data)
			req, _ := http.NewRequest("POST", p.in.URL+"/authentication/erase", strings.NewReader(`{"reference":"`+ref+`","reason":"crash test"}`))
			req.Header.Set("Ocp-Apim-Subscription-Key", p.in.Sub)
			req.Header.Set("Api-Key", p.in.API)
			req.Header.Set("Content-Type", "application/json")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close() // the process dies before it answers; an answer is checked by the exit status below
			}
			if code := p.wait(t, 60*time.Second); code != 137 {
				t.Fatalf("exit %d, want 137 at %s\n%s", code, point, p.in.logText())
			}
			e, err := ipfs.OpenEmbedded(filepath.Join(dir, "ipfs"))
			if err != nil {
				t.Fatal(err)
			}
			pinned, err := e.Pinned(t.Context(), cid)
			e.Close()
			if err != nil {
				t.Fatal(err)
			}
			if want := point == seald.CrashAfterEraseSave; pinned != want {
				t.Fatalf("after the crash at %s the copy is pinned = %v, want %v", point, pinned, want)
			}
			p2 := startProcess(t, bin, dir, nil)
			if code := waitGatewayGone(t, p2.in, cid); code != 410 {
				t.Errorf("gateway after the restart: %d, want 410", code)
			}
			checkErased(t, p2.in, ref, hash, cid, data)
			// The erase job is done: the restarted process holds no job for the record.
			p2.terminate(t)
			e, err = ipfs.OpenEmbedded(filepath.Join(dir, "ipfs"))
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if pinned, err := e.Pinned(t.Context(), cid); err != nil || pinned {
				t.Errorf("after the restart the copy is pinned = %v (%v)", pinned, err)
			}
			if _, err := e.Get(t.Context(), cid); seald.ErrorCode(err) != seald.ENOTFOUND {
				t.Errorf("after the restart Get of the copy: %v, want ENOTFOUND (its blocks deleted)", err)
			}
		})
	}
}

// TestRetention runs the binary with a test clock (crashtest builds only): two projects keep copies one day
// and three days; two days on, the sweep erases the first project's record and not the second's.
func TestRetention(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "crashtest")
	dir := t.TempDir()
	p := startProcess(t, bin, dir, nil, "--retention-every", "100ms")
	if r := p.in.call("PUT", "/tenant/update", p.in.Sub, p.in.API, "application/json", map[string]any{"retain": "1d"}); r.Status != 200 {
		t.Fatalf("retain 1d: %d %s", r.Status, r.Raw)
	}
	longer := tenant(t, dir, "--business", "Keeps", "--project", "Longer", "--retain", "3d")
	short, _, _ := sealAndComplete(t, p.in, map[string]any{"kept": "one day"})
	long, _ := p.in.sealAs(owner{longer["subscription_key"], longer["api_key"]}, `{"kept":"three days"}`)
	p.in.waitOwned(owner{longer["subscription_key"], longer["api_key"]}, long, "COMPLETED")
	p.terminate(t)

	p2 := startProcess(t, bin, dir, []string{"SEALD_TEST_CLOCK_OFFSET=48h"}, "--retention-every", "100ms")
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := p2.in.get("/authentication-status/get/status?reference=" + short)
		if field(st.Body, "data.erased_time") != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the record past its retention was not erased: %s\n%s", st.Raw, p2.in.logText())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The sweep that erased the first looked at every project: the second record, within its period, stays.
	st := p2.in.call("GET", "/authentication-status/get/status?reference="+long, longer["subscription_key"], longer["api_key"], "", nil)
	if st.Status != 200 || field(st.Body, "data.erased_time") != nil {
		t.Errorf("the record within its retention: %d %s, want not erased", st.Status, st.Raw)
	}
	h := p2.in.get("/authentication-status/history?reference=" + short)
	if !strings.Contains(string(h.Raw), `"actor":"retention"`) || !strings.Contains(string(h.Raw), `"action":"erase"`) {
		t.Errorf("audit trail of the retention erasure: %s", h.Raw)
	}
}

// TestErasureSurvivesBackupRestore restores a database backup taken before an erasure, as an operator would
// after losing the disk: the backup still holds the record's data key, and the erasure log kept outside the
// database (erasures.log in the data dir) makes the next start erase it again before anything is served, so
// the download stays 410 and the record shows its erasure.
func TestErasureSurvivesBackupRestore(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "")
	dir := t.TempDir()
	backup := t.TempDir()
	p := startProcess(t, bin, dir, nil)
	data := map[string]any{"id": "backup"}
	ref, hash, cid := sealAndComplete(t, p.in, data)
	if dl := p.in.get("/svc-data/data/download?reference=" + ref); dl.Status != 200 {
		t.Fatalf("download before erasure: %d %s", dl.Status, dl.Raw)
	}
	p.terminate(t)
	copyDB(t, dir, backup) // the backup: the database with the record's data key in it

	p = startProcess(t, bin, dir, nil)
	if r := p.in.post("/authentication/erase", map[string]any{"reference": ref, "reason": "erasure request"}); r.Status != 200 {
		t.Fatalf("erase: %d %s", r.Status, r.Raw)
	}
	checkErased(t, p.in, ref, hash, cid, data)
	p.terminate(t)

	copyDB(t, backup, dir) // the restore
	p = startProcess(t, bin, dir, nil, "--log-level", "info")
	checkErased(t, p.in, ref, hash, cid, data)
	if !strings.Contains(p.in.logText(), "erased again the records the erasure log lists") {
		t.Errorf("the start after the restore did not say it erased the record again:\n%s", p.in.logText())
	}
	p.terminate(t)
}

// copyDB copies the SQLite database files (seald.db and its WAL, if any) of one data dir over another's.
func copyDB(t *testing.T, from, to string) {
	t.Helper()
	for _, name := range []string{"seald.db", "seald.db-wal", "seald.db-shm"} {
		os.Remove(filepath.Join(to, name))
		b, err := os.ReadFile(filepath.Join(from, name))
		if errors.Is(err, os.ErrNotExist) && name != "seald.db" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
