package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"seald.dev/seald/ipfs"
)

var (
	authPath   = "/svc-data/data/authentication/ipfs/sm-polygon/email"
	statusPath = "/authentication-status/get/status"
	genPath    = "/svc-file/api/v1/ovi/generator"
	updatePath = "/authentication-status/update/status"
	verifyBase = "/verification/api/v1/verify/"
	refPattern = regexp.MustCompile(`^D-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	timeFormat = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
)

// tenant creates a tenant through the CLI, as an operator would, and returns its keys.
func tenant(t *testing.T, dataDir string, args ...string) map[string]string {
	t.Helper()
	var out, errb bytes.Buffer
	all := append([]string{"tenant", "create", "--data-dir", dataDir, "--json"}, args...)
	if err := run(t.Context(), all, func(string) string { return "" }, &out, &errb); err != nil {
		t.Fatalf("tenant create: %v\n%s", err, errb.String())
	}
	var m map[string]string
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("tenant create printed %q: %v", out.String(), err)
	}
	for _, k := range []string{"business_id", "project_id", "subscription_key", "api_key"} {
		if m[k] == "" {
			t.Fatalf("tenant create: %s missing in %v", k, m)
		}
	}
	return m
}

func TestEndToEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := startServe(t, dir, nil, "--webhook-allow", "127.0.0.1/32")

	data := map[string]any{"invoice": "INV-1", "amount": 1.0, "lines": []any{"a", "b"}, "customer": map[string]any{"name": "Zoë", "id": 7}}
	// The hash is SHA-256 of the RFC 8785 form: keys sorted, 1.0 written as 1.
	canonical := `{"amount":1,"customer":{"id":7,"name":"Zoë"},"invoice":"INV-1","lines":["a","b"]}`
	sum := sha256.Sum256([]byte(canonical))
	wantHash := hex.EncodeToString(sum[:])

	var ref, sameRef string
	t.Run("authenticate", func(t *testing.T) {
		r := in.post(authPath, map[string]any{"data": data, "to": "alice@example.com", "cc": "bob@example.com, carol@example.com",
			"subject": "Sealed", "body": "Hello", "is_html": 0, "unknown_member": true})
		if r.Status != 201 || r.Body["success"] != true || r.Body["error"] != nil {
			t.Fatalf("authenticate: %d %s", r.Status, r.Raw)
		}
		ref = str(r.Body, "data.reference")
		if !refPattern.MatchString(ref) {
			t.Errorf("reference %q is not D- and a lowercase UUID v4", ref)
		}
		if h := str(r.Body, "data.hash"); h != wantHash {
			t.Errorf("hash %s, want %s", h, wantHash)
		}
		if loc := r.Header.Get("Location"); loc != statusPath+"?reference="+ref {
			t.Errorf("Location %q", loc)
		}
	})
	t.Run("same data, other spelling, same hash", func(t *testing.T) {
		r := in.post(authPath, `{"to":"x@example.com","data":{"lines":["a","b"],"invoice":"INV-1","customer":{"id":7.0,"name":"Zo\u00eb"},"amount":1}}`)
		if r.Status != 201 || str(r.Body, "data.hash") != wantHash {
			t.Fatalf("got %d %s, want hash %s", r.Status, r.Raw, wantHash)
		}
		sameRef = str(r.Body, "data.reference")
	})

	rec := in.waitState(ref, finalState, 60*time.Second)
	in.waitState(sameRef, finalState, 60*time.Second) // by hash, the newest record of the hash answers
	t.Run("status record", func(t *testing.T) {
		for k, want := range map[string]any{"reference": ref, "hash": wantHash, "pipeline": "ipfs/sm-polygon/email",
			"blockchain_network": "POLYGON", "mimetype": "application/json", "error_type": "", "error_message": nil,
			"is_email": true, "is_encrypted": true, "is_signed": true, "has_password": false} {
			if got := rec[k]; got != want {
				t.Errorf("%s = %v, want %v", k, got, want)
			}
		}
		if !strings.HasPrefix(str(rec, "cid"), "baf") || str(rec, "encrypted_file") != "ipfs://"+str(rec, "cid") {
			t.Errorf("cid %q encrypted_file %q", rec["cid"], rec["encrypted_file"])
		}
		if str(rec, "token_id") == "" {
			t.Error("no token_id after COMPLETED")
		}
		for _, k := range []string{"created_time", "updated_time"} {
			if !timeFormat.MatchString(str(rec, k)) {
				t.Errorf("%s = %q is not RFC 3339 UTC with milliseconds", k, rec[k])
			}
		}
	})
	cid, token := str(rec, "cid"), str(rec, "token_id")

	t.Run("verify by every key", func(t *testing.T) {
		for name, r := range map[string]*response{
			"reference":                   in.get(verifyBase + "reference?reference=" + ref),
			"hash":                        in.get(verifyBase + "hash?hash=" + wantHash),
			"cid":                         in.get(verifyBase + "cid?cid=" + cid),
			"token-id":                    in.get(verifyBase + "token-id?token_id=" + token + "&blockchain=POLYGON"),
			"token-id without blockchain": in.get(verifyBase + "token-id?token_id=" + token),
			"data":                        in.post(verifyBase+"data", map[string]any{"data": data}),
		} {
			if r.Status != 200 || r.Body["success"] != true {
				t.Errorf("%s: %d %s", name, r.Status, r.Raw)
				continue
			}
			if _, has := r.Body["error"]; has {
				t.Errorf("%s: the verification envelope has no error member: %s", name, r.Raw)
			}
			d := r.Body["data"]
			if name != "hash" && name != "data" && str(d, "details.reference") != ref {
				t.Errorf("%s: reference %q", name, str(d, "details.reference"))
			}
			if str(d, "details.hash") != wantHash || str(d, "status") != "ACTIVE" || str(d, "privacy") != "PUBLIC" ||
				str(d, "blockchain.blockchain_network") != "POLYGON" || str(d, "blockchain.token_id") == "" ||
				str(d, "ipfs.ipfs_gateway_link") != in.URL+"/ipfs/"+str(d, "ipfs.cid") ||
				str(d, "owner.business.name") != "Default business" || str(d, "owner.project.privacy") != "PUBLIC" ||
				field(d, "misc.is_signed") != true || field(d, "is_data_downloadable") != true {
				t.Errorf("%s: unexpected result %s", name, r.Raw)
			}
		}
	})

	t.Run("proof bundle", func(t *testing.T) {
		r := in.get(verifyBase + "reference?reference=" + ref + "&proof=1")
		p, _ := field(r.Body, "data.proof").(map[string]any)
		if p == nil || str(p, "hash") != wantHash || str(p, "token_id") != token || str(p, "root") == "" || str(p, "signature") == "" {
			t.Fatalf("proof: %s", r.Raw)
		}
		// The same bundle for anyone, from the page's link; what names none is a JSON 404 in the plain envelope.
		if r := in.call("GET", "/v/"+ref+"/proof.json", "", "", "", nil); r.Status != 200 || str(r.Body, "hash") != wantHash || str(r.Body, "token_id") != token {
			t.Errorf("public proof: %d %s", r.Status, r.Raw)
		}
		if r := in.call("GET", "/v/D-00000000-0000-4000-8000-000000000000/proof.json", "", "", "", nil); r.Status != 404 ||
			r.Body["success"] != false || !strings.Contains(str(r.Body, "error"), "no sealed record") {
			t.Errorf("public proof of no record: %d %s", r.Status, r.Raw)
		}
		if r := in.call("GET", "/tokens/POLYGON/"+token, "", "", "", nil); r.Status != 200 || str(r.Body, "external_url") != in.URL+"/v/"+ref {
			t.Errorf("token metadata: %d %s", r.Status, r.Raw)
		}
		if r := in.call("GET", "/tokens/POLYGON/999999", "", "", "", nil); r.Status != 404 ||
			r.Body["success"] != false || !strings.Contains(str(r.Body, "error"), "no token 999999") {
			t.Errorf("token metadata of no token: %d %s", r.Status, r.Raw)
		}
		// The bundle links to its batch's manifest, which recomputes the root on chain (docs/api.md).
		link := str(p, "manifest")
		if !strings.HasPrefix(link, in.URL+"/batches/POLYGON/") {
			t.Errorf("the proof's manifest link %q is not this service's /batches/POLYGON/...", link)
		} else if r := in.call("GET", strings.TrimPrefix(link, in.URL), "", "", "", nil); r.Status != 200 || str(r.Body, "root") != str(p, "root") ||
			!slices.ContainsFunc(anyList(r.Body["tokens"]), func(v any) bool { m, _ := v.(map[string]any); return fmt.Sprint(m["token_id"]) == token }) {
			t.Errorf("batch manifest: %d %s", r.Status, r.Raw)
		}
		if r := in.call("GET", "/batches/POLYGON/999999", "", "", "", nil); r.Status != 404 || r.Body["success"] != false {
			t.Errorf("batch manifest of no batch: %d %s", r.Status, r.Raw)
		}
	})

	t.Run("gateway serves the envelope", func(t *testing.T) {
		r := in.call("GET", "/ipfs/"+cid, "", "", "", nil)
		if r.Status != 200 || len(r.Raw) == 0 || bytes.Contains(r.Raw, []byte("INV-1")) {
			t.Fatalf("gateway: %d, %d bytes, plaintext visible: %v", r.Status, len(r.Raw), bytes.Contains(r.Raw, []byte("INV-1")))
		}
		if got, err := ipfs.CID(t.Context(), r.Raw); err != nil || got != cid {
			t.Errorf("the served bytes hash to %s (%v), not %s", got, err, cid)
		}
		// A ranged request is a 206 with those bytes, an impossible range a 416; openapi.json lists both.
		part := in.callWith("GET", "/ipfs/"+cid, map[string]string{"Range": "bytes=2-9"}, nil)
		if part.Status != 206 || !bytes.Equal(part.Raw, r.Raw[2:10]) || part.Header.Get("Content-Range") == "" {
			t.Errorf("ranged gateway request: %d %q", part.Status, part.Header.Get("Content-Range"))
		}
		if far := in.callWith("GET", "/ipfs/"+cid, map[string]string{"Range": "bytes=100000000-"}, nil); far.Status != 416 {
			t.Errorf("a range past the end: %d", far.Status)
		}
		// No block on disk holds the plaintext.
		_ = filepath.WalkDir(filepath.Join(dir, "ipfs"), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("INV-1")) {
					t.Errorf("plaintext in stored block %s", path)
				}
			}
			return nil
		})
	})

	t.Run("outbox has the e-mail", func(t *testing.T) {
		deadline := time.Now().Add(10 * time.Second)
		for {
			for _, m := range outboxMessages(t, dir) {
				if m.Reference != ref {
					continue
				}
				b := string(m.Raw)
				for _, want := range []string{"To: <alice@example.com>", "Cc: <bob@example.com>, <carol@example.com>",
					"Subject: Sealed", "Hello", "/v/" + ref, wantHash, "Message-ID: <" + ref + "@", "Sealed by: "} {
					if !strings.Contains(b, want) {
						t.Errorf("message lacks %q:\n%s", want, b)
					}
				}
				if n := len(outboxMessages(t, dir)); n < 2 {
					t.Errorf("%d messages in the outbox, want one per record", n)
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("no message in the outbox")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	t.Run("generator and encrypted reference", func(t *testing.T) {
		r := in.post(genPath, map[string]any{"data": map[string]any{"doc": "contract.pdf", "pages": 3}})
		if r.Status != 201 || r.Body["error"] != nil {
			t.Fatalf("generator: %d %s", r.Status, r.Raw)
		}
		gref, ovi := str(r.Body, "data.reference"), str(r.Body, "data.encrypted_ovi")
		if !strings.HasPrefix(gref, "I-") || ovi == "" || str(r.Body, "data.verification_link") != in.URL+"/v/"+gref {
			t.Fatalf("generator result %s", r.Raw)
		}
		if strings.ContainsAny(ovi, "+/=") {
			t.Errorf("encrypted_ovi %q is not URL-safe base64 without padding", ovi)
		}
		v := in.get(verifyBase + "ovi?ovi=" + ovi)
		if v.Status != 200 || str(v.Body, "data.details.reference") != gref || str(v.Body, "data.details.pipeline") != "ovi" {
			t.Errorf("verify ovi: %d %s", v.Status, v.Raw)
		}
		if v := in.get(verifyBase + "reference?reference=" + gref); v.Status != 200 {
			t.Errorf("verify generator record by reference: %d %s", v.Status, v.Raw)
		}
		tampered := ovi[:len(ovi)-2] + flip(ovi[len(ovi)-2]) + ovi[len(ovi)-1:]
		for _, bad := range []string{tampered, ovi[:20], "not-an-ovi!", strings.Repeat("A", 110)} {
			if v := in.get(verifyBase + "ovi?ovi=" + bad); v.Status != 400 || v.Body["success"] != false {
				t.Errorf("ovi %q: %d %s, want 400", bad, v.Status, v.Raw)
			}
		}
	})

	t.Run("download round trip and password", func(t *testing.T) {
		r := in.post(authPath, map[string]any{"data": data, "to": "a@example.com", "password": "s3cret"})
		pref := str(r.Body, "data.reference")
		in.waitState(pref, finalState, 60*time.Second)
		dl := func(pw string) *response {
			return in.callWith("GET", "/svc-data/data/download?reference="+pref, map[string]string{"X-Data-Password": pw}, nil)
		}
		if r := dl("wrong"); r.Status != 401 || r.Body["data"] != nil {
			t.Errorf("wrong password: %d %s", r.Status, r.Raw)
		}
		if r := dl(""); r.Status != 401 {
			t.Errorf("no password: %d %s", r.Status, r.Raw)
		}
		r = dl("s3cret")
		got, _ := json.Marshal(r.Body["data"])
		if r.Status != 200 || string(got) != canonical {
			t.Errorf("download: %d %s, want data %s", r.Status, r.Raw, canonical)
		}
		if r := in.get("/svc-data/data/download?reference=" + ref); r.Status != 200 {
			t.Errorf("download without password: %d %s", r.Status, r.Raw)
		}
	})

	other := tenant(t, dir, "--business", "Other Corp", "--project", "Secret", "--privacy", "PRIVATE")
	t.Run("tenant join reuses the subscription key", func(t *testing.T) {
		again := tenant(t, dir, "--business", "Other Corp", "--project", "Second")
		if again["business_id"] != other["business_id"] || again["subscription_key"] != other["subscription_key"] || again["project_id"] == other["project_id"] {
			t.Errorf("second project: %v, first: %v", again, other)
		}
		r := in.call("GET", verifyBase+"reference?reference="+ref, again["subscription_key"], again["api_key"], "", nil)
		if r.Status != 200 {
			t.Errorf("the joined project's keys do not work: %d %s", r.Status, r.Raw)
		}
		mixed := in.call("GET", verifyBase+"reference?reference="+ref, in.Sub, other["api_key"], "", nil)
		if mixed.Status != 401 {
			t.Errorf("keys of two businesses together: %d, want 401", mixed.Status)
		}
	})

	t.Run("private records are invisible to other businesses", func(t *testing.T) {
		r := in.call("POST", authPath, other["subscription_key"], other["api_key"], "application/json",
			map[string]any{"data": map[string]any{"secret": 1}, "to": "o@example.com"})
		if r.Status != 201 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		pref, phash := str(r.Body, "data.reference"), str(r.Body, "data.hash")
		own := in.call("GET", verifyBase+"reference?reference="+pref, other["subscription_key"], other["api_key"], "", nil)
		if own.Status != 200 || str(own.Body, "data.privacy") != "PRIVATE" {
			t.Errorf("owner: %d %s", own.Status, own.Raw)
		}
		for _, p := range []string{verifyBase + "reference?reference=" + pref, verifyBase + "hash?hash=" + phash, statusPath + "?reference=" + pref} {
			if r := in.get(p); r.Status != 404 {
				t.Errorf("%s seen by another business: %d %s", p, r.Status, r.Raw)
			}
		}
		if r := in.post(verifyBase+"data", map[string]any{"data": map[string]any{"secret": 1}}); r.Status != 404 {
			t.Errorf("verify data of a private record by another business: %d", r.Status)
		}
		if r := in.get("/svc-data/data/download?reference=" + pref); r.Status != 404 || r.Body["data"] != nil {
			t.Errorf("another business downloading: %d %s", r.Status, r.Raw)
		}
		if r := in.callWith("PUT", updatePath, nil, map[string]any{"reference": pref, "status": "REVOKED"}); r.Status != 404 {
			t.Errorf("another business revoking: %d %s", r.Status, r.Raw)
		}
	})

	t.Run("status transitions", func(t *testing.T) {
		put := func(status string) *response {
			return in.callWith("PUT", updatePath, nil, map[string]any{"reference": ref, "status": status})
		}
		for _, step := range []struct {
			status string
			code   int
		}{{"SUSPENDED", 200}, {"ACTIVE", 200}, {"SUSPENDED", 200}, {"REVOKED", 200}, {"ACTIVE", 400}, {"SUSPENDED", 400}, {"BOGUS", 400}} {
			r := put(step.status)
			if r.Status != step.code {
				t.Errorf("PUT %s: %d %s, want %d", step.status, r.Status, r.Raw, step.code)
			}
			if step.code == 200 && (str(r.Body, "data.status") != step.status || str(r.Body, "data.msg") == "") {
				t.Errorf("PUT %s: %s", step.status, r.Raw)
			}
		}
		v := in.get(verifyBase + "reference?reference=" + ref)
		if str(v.Body, "data.status") != "REVOKED" {
			t.Errorf("after revoke, status %q", str(v.Body, "data.status"))
		}
		// The audit trail: four changes, oldest first, by the owner's key; another business sees nothing.
		h := in.get("/authentication-status/history?reference=" + ref)
		changes, _ := field(h.Body, "data.changes").([]any)
		if h.Status != 200 || len(changes) != 4 || str(changes[0], "from") != "ACTIVE" || str(changes[3], "to") != "REVOKED" ||
			str(changes[0], "actor") == "" || str(changes[0], "actor") == "cli" {
			t.Errorf("history: %d %s", h.Status, h.Raw)
		}
		if o := in.call("GET", "/authentication-status/history?reference="+ref, other["subscription_key"], other["api_key"], "", nil); o.Status != 404 {
			t.Errorf("another business's history request: %d %s", o.Status, o.Raw)
		}
		var cli, cliErr bytes.Buffer
		if err := run(t.Context(), []string{"record", "history", ref, "--data-dir", dir}, func(string) string { return "" }, &cli, &cliErr); err != nil ||
			!strings.Contains(cli.String(), "4 status changes") || !strings.Contains(cli.String(), "REVOKED") {
			t.Errorf("seald record history: %v %s %s", err, cli.String(), cliErr.String())
		}
		deadline := time.Now().Add(30 * time.Second)
		for field(in.get(verifyBase+"reference?reference="+ref).Body, "data.blockchain.revoked_on_chain") != true {
			if time.Now().After(deadline) {
				t.Fatal("the revocation never reached the chain")
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		badInput(t, in)
	})

	t.Run("no key material in the logs", func(t *testing.T) {
		logs := in.logText()
		if !strings.Contains(logs, `"msg":"request"`) {
			t.Fatal("no request log lines were written")
		}
		for _, secret := range []string{in.Sub, in.API, other["subscription_key"], other["api_key"]} {
			if strings.Contains(logs, secret) || strings.Contains(logs, secret[10:]) {
				t.Errorf("a key appears in the logs")
			}
		}
	})

	t.Run("service operations", func(t *testing.T) {
		if r := in.call("GET", "/.well-known/seald-key", "", "", "", nil); r.Status != 200 || str(r.Body, "data.algorithm") != "Ed25519" {
			t.Errorf("public key: %d %s", r.Status, r.Raw)
		}
		if r := in.call("GET", "/.well-known/seald-trust.json", "", "", "", nil); r.Status != 200 ||
			field(r.Body, "version") != float64(2) || !strings.Contains(string(r.Raw), `"development": true`) {
			t.Errorf("trust root: %d %s", r.Status, r.Raw)
		}
		if r := in.call("GET", "/readyz", "", "", "", nil); r.Status != 200 || r.Body["success"] != true {
			t.Errorf("readyz: %d %s", r.Status, r.Raw)
		}
		if r := in.call("GET", "/openapi.json", "", "", "", nil); r.Status != 200 || r.Body["openapi"] != "3.1.0" {
			t.Errorf("openapi.json: %d %.200s", r.Status, r.Raw)
		}
		// This serve has no EOS network: the EOS operation refuses in its envelope.
		r := in.post("/svc-data/data/authentication/ipfs/sm-eos/email", map[string]any{"data": map[string]any{"x": 1}, "to": "a@example.com"})
		if r.Status != 400 || !strings.Contains(str(r.Body, "error"), "EOS") || !strings.Contains(str(r.Body, "error"), "--eos-chain") {
			t.Errorf("EOS without an EOS chain: %d %s", r.Status, r.Raw)
		}
	})

	t.Run("request ids", func(t *testing.T) {
		r := in.callWith("GET", "/healthz", map[string]string{"X-Request-Id": "abc-123"}, nil)
		if r.Header.Get("X-Request-Id") != "abc-123" {
			t.Errorf("X-Request-Id %q, want the caller's", r.Header.Get("X-Request-Id"))
		}
		r = in.callWith("GET", "/healthz", map[string]string{"X-Request-Id": "bad id\twith junk"}, nil)
		if id := r.Header.Get("X-Request-Id"); id == "" || strings.Contains(id, " ") {
			t.Errorf("insane X-Request-Id kept: %q", id)
		}
	})

	t.Run("tenant details", func(t *testing.T) {
		u := in.callWith("PUT", "/tenant/update", nil, map[string]any{"website": "https://acme.example", "project_description": "Invoices of 2026"})
		if u.Status != 200 || str(u.Body, "data.business.website") != "https://acme.example" || str(u.Body, "data.project.description") != "Invoices of 2026" {
			t.Fatalf("tenant update: %d %s", u.Status, u.Raw)
		}
		if v := in.get(verifyBase + "reference?reference=" + ref); str(v.Body, "data.owner.business.website") != "https://acme.example" {
			t.Errorf("a verification after the update shows website %q", str(v.Body, "data.owner.business.website"))
		}
		for _, bad := range []map[string]any{{}, {"nonsense": "x"}, {"name": ""}, {"website": 7}} {
			if r := in.callWith("PUT", "/tenant/update", nil, bad); r.Status != 400 {
				t.Errorf("tenant update %v: %d %s", bad, r.Status, r.Raw)
			}
		}
		// The operator: rename the other business and its project; joining it with another website is refused.
		var out, errb bytes.Buffer
		if err := run(t.Context(), []string{"tenant", "update", "--data-dir", dir, "--business", other["business_id"], "--name", "Other Corp Ltd",
			"--project", other["project_id"], "--project-name", "Secret 2"}, func(string) string { return "" }, &out, &errb); err != nil {
			t.Fatalf("seald tenant update: %v %s", err, errb.String())
		}
		err := run(t.Context(), []string{"tenant", "create", "--data-dir", dir, "--business", "Other Corp Ltd", "--project", "Third",
			"--website", "https://elsewhere.example"}, func(string) string { return "" }, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), "tenant update") {
			t.Errorf("joining a business with another website: %v", err)
		}
	})

	// The webhook operations, each once (TestWebhooks covers them in depth through the binary).
	t.Run("webhooks", func(t *testing.T) {
		rcv := startReceiver(t, "127.0.0.1:0")
		id, secret := addWebhook(t, in, rcv.URL, "record.status_changed")
		rcv.setSecret(secret)
		if r := in.get("/webhooks"); r.Status != 200 || len(field(r.Body, "data.webhooks").([]any)) != 1 {
			t.Errorf("GET /webhooks: %d %s", r.Status, r.Raw)
		}
		ref := seal(t, in, 7)
		if r := in.callWith("PUT", "/authentication-status/update/status", nil, map[string]any{"reference": ref, "status": "SUSPENDED"}); r.Status != 200 {
			t.Fatalf("suspend: %d %s", r.Status, r.Raw)
		}
		var d map[string]any
		waitFor(t, "the status change delivered", func() bool {
			ds := deliveriesOf(t, in, id)
			if len(ds) == 1 && ds[0]["state"] == "DELIVERED" {
				d = ds[0]
				return true
			}
			return false
		})
		if r := in.post("/webhooks/deliveries/"+str(d, "id")+"/replay", nil); r.Status != 201 || str(r.Body, "data.event_id") != str(d, "event_id") {
			t.Errorf("replay: %d %s", r.Status, r.Raw)
		}
		if r := in.call("DELETE", "/webhooks/"+id, in.Sub, in.API, "", nil); r.Status != 200 || str(r.Body, "data.id") != id {
			t.Errorf("DELETE /webhooks/%s: %d %s", id, r.Status, r.Raw)
		}
		if r := in.call("DELETE", "/webhooks/"+id, in.Sub, in.API, "", nil); r.Status != 404 {
			t.Errorf("DELETE /webhooks/%s twice: %d %s", id, r.Status, r.Raw)
		}
		got := rcv.deliveries()
		if len(got) == 0 || !got[0].SigOK || got[0].ID != str(d, "event_id") || got[0].Data["reference"] != ref {
			t.Errorf("received %+v", got)
		}
	})

	// The disclosure package (issue 35) of the anchored record; TestDisclosureOnGeth makes and checks
	// presentations from it.
	t.Run("disclosure package", func(t *testing.T) {
		r := in.get("/verification/api/v1/disclosure?reference=" + ref)
		if r.Status != 200 || str(r.Body, "data.type") != "seald-disclosure-package" || str(r.Body, "data.reference") != ref {
			t.Errorf("disclosure package: %d %s", r.Status, r.Raw)
		}
	})

	// Credentials (issue 42): each operation once, its answers checked against openapi.json; TestCredentials
	// checks the credentials themselves with independent verifiers.
	t.Run("credential", func(t *testing.T) {
		r := in.get("/verification/api/v1/credential?reference=" + ref)
		if r.Status != 200 || str(r.Body, "data.format") != "vc" || !strings.HasPrefix(str(r.Body, "data.issuer"), "did:web:") {
			t.Errorf("credential: %d %s", r.Status, r.Raw)
		}
		for _, p := range []string{"/.well-known/did.json", "/credentials/contexts/v1", "/credentials/status/revocation/0", "/credentials/status-tokens/0"} {
			if r := in.callWith("GET", p, nil, nil); r.Status != 200 {
				t.Errorf("GET %s: %d %s", p, r.Status, r.Raw)
			}
		}
	})

	// The business's domain identity (did:web): claimed, read back, and checked; the check fails here (nothing
	// publishes the document) and says why, in a 200 like every check. TestIdentityThroughBinary verifies one.
	t.Run("identity", func(t *testing.T) {
		r := in.post("/tenant/identity", map[string]any{"domain": "127.0.0.1:1"})
		if r.Status != 200 || str(r.Body, "data.did") != "did:web:127.0.0.1%3A1" || str(r.Body, "data.state") != "pending" {
			t.Fatalf("set identity: %d %s", r.Status, r.Raw)
		}
		if r := in.get("/tenant/identity"); r.Status != 200 || str(r.Body, "data.did") != "did:web:127.0.0.1%3A1" {
			t.Errorf("get identity: %d %s", r.Status, r.Raw)
		}
		if r := in.post("/tenant/identity/check", nil); r.Status != 200 || str(r.Body, "data.state") == "verified" || str(r.Body, "data.reason") == "" {
			t.Errorf("check identity with nothing published: %d %s", r.Status, r.Raw)
		}
	})

	// Erasure (issue 19): its answers, the 410 of download and the erased_time members are checked against
	// openapi.json like every other answer here; TestErasure checks what erasure keeps and removes.
	t.Run("erase", func(t *testing.T) {
		r := in.post(authPath, map[string]any{"data": map[string]any{"to": "be erased"}, "to": "a@example.com"})
		eref := str(r.Body, "data.reference")
		in.waitState(eref, "COMPLETED", 60*time.Second)
		if r := in.post("/authentication/erase", map[string]any{"reference": eref, "reason": "end to end"}); r.Status != 200 {
			t.Fatalf("erase: %d %s", r.Status, r.Raw)
		}
		if r := in.get("/svc-data/data/download?reference=" + eref); r.Status != 410 {
			t.Errorf("download after erasure: %d %s", r.Status, r.Raw)
		}
		if r := in.get("/verification/api/v1/disclosure?reference=" + eref); r.Status != 410 {
			t.Errorf("disclosure package after erasure: %d %s", r.Status, r.Raw)
		}
		if r := in.get("/authentication-status/get/status?reference=" + eref); str(r.Body, "data.erased_time") == "" {
			t.Errorf("status after erasure: %s", r.Raw)
		}
		if r := in.get("/authentication-status/history?reference=" + eref); r.Status != 200 {
			t.Errorf("history after erasure: %d %s", r.Status, r.Raw)
		}
	})

	// Every request and response above was validated against openapi.json as it went (the problems are
	// reported when the instance is cleaned up); here, every operation of the document must have been used.
	t.Run("openapi coverage", func(t *testing.T) {
		for _, op := range in.check.Missing() {
			t.Errorf("the end-to-end test never calls %s", op)
		}
	})
}

func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

// badInput walks the error cases of every operation: each is a 4xx in the operation's envelope with a
// message naming the problem, and none leaves a record behind.
func badInput(t *testing.T, in *instance) {
	okData := map[string]any{"x": 1}
	big := `{"to":"a@example.com","data":{"x":"` + strings.Repeat("a", 2<<20) + `"}}`
	cases := []struct {
		name, method, path, contentType string
		body                            any
		noKeys                          bool
		code                            int
		msg                             string
	}{
		{"no keys", "POST", authPath, "application/json", map[string]any{"data": okData, "to": "a@example.com"}, true, 401, "Ocp-Apim-Subscription-Key"},
		{"no keys on verify", "GET", verifyBase + "hash?hash=" + strings.Repeat("a", 64), "", nil, true, 401, "Ocp-Apim-Subscription-Key"},
		{"malformed JSON", "POST", authPath, "application/json", `{"data": {"x": 1},`, false, 400, "malformed JSON"},
		{"not an object", "POST", authPath, "application/json", `[1,2]`, false, 400, "JSON object"},
		{"data missing", "POST", authPath, "application/json", map[string]any{"to": "a@example.com"}, false, 400, "data is required"},
		{"data an array", "POST", authPath, "application/json", map[string]any{"data": []int{1}, "to": "a@example.com"}, false, 400, "data must be a JSON object"},
		{"data a string", "POST", genPath, "application/json", map[string]any{"data": "x"}, false, 400, "data must be a JSON object"},
		{"data null", "POST", verifyBase + "data", "application/json", map[string]any{"data": nil}, false, 400, "data is required"},
		{"to missing", "POST", authPath, "application/json", map[string]any{"data": okData}, false, 400, "to is required"},
		{"to not a string", "POST", authPath, "application/json", map[string]any{"data": okData, "to": 5}, false, 400, "to must be a string"},
		{"bad address", "POST", authPath, "application/json", map[string]any{"data": okData, "to": "not an address"}, false, 400, "to is not a valid"},
		{"bad cc", "POST", authPath, "application/json", map[string]any{"data": okData, "to": "a@example.com", "cc": "x@"}, false, 400, "cc"},
		{"CRLF in subject", "POST", authPath, "application/json", map[string]any{"data": okData, "to": "a@example.com", "subject": "Hi\r\nBcc: evil@example.com"}, false, 400, "subject must not contain CR or LF"},
		{"LF in to", "POST", authPath, "application/json", map[string]any{"data": okData, "to": "a@example.com\nBcc: e@example.com"}, false, 400, "to must not contain CR or LF"},
		{"is_html wrong", "POST", authPath, "application/json", map[string]any{"data": okData, "to": "a@example.com", "is_html": "yes"}, false, 400, "is_html"},
		{"duplicate key", "POST", authPath, "application/json", `{"to":"a@example.com","data":{"a":1,"a":2}}`, false, 400, "data"},
		{"number overflow", "POST", authPath, "application/json", `{"to":"a@example.com","data":{"a":1e400}}`, false, 400, "data.a"},
		{"lone surrogate", "POST", authPath, "application/json", `{"to":"a@example.com","data":{"a":"\ud800"}}`, false, 400, "data.a"},
		{"no content type", "POST", authPath, "", map[string]any{"data": okData, "to": "a@example.com"}, false, 415, "application/json"},
		{"wrong content type", "POST", verifyBase + "data", "text/plain", map[string]any{"data": okData}, false, 415, "application/json"},
		{"oversized body", "POST", authPath, "application/json", big, false, 413, "larger than"},
		{"hash wrong shape", "GET", verifyBase + "hash?hash=abc", "", nil, false, 400, "hash must be 64"},
		{"hash missing", "GET", verifyBase + "hash", "", nil, false, 400, "hash is required"},
		{"reference unknown prefix", "GET", verifyBase + "reference?reference=X-123", "", nil, false, 400, "reference"},
		{"reference malformed", "GET", statusPath + "?reference=D-nope", "", nil, false, 400, "reference"},
		{"reference unknown", "GET", verifyBase + "reference?reference=D-0b9c2f1e-5d7a-4c3b-8a9e-1f2d3c4b5a69", "", nil, false, 404, "no record"},
		{"status unknown", "GET", statusPath + "?reference=D-0b9c2f1e-5d7a-4c3b-8a9e-1f2d3c4b5a69", "", nil, false, 404, "no record"},
		{"hash unknown", "GET", verifyBase + "hash?hash=" + strings.Repeat("0", 64), "", nil, false, 404, "no record"},
		{"cid malformed", "GET", verifyBase + "cid?cid=notacid", "", nil, false, 400, "cid"},
		{"cid unknown", "GET", verifyBase + "cid?cid=bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku", "", nil, false, 404, "no record"},
		{"token id not decimal", "GET", verifyBase + "token-id?token_id=0x10", "", nil, false, 400, "token_id"},
		{"token id too big", "GET", verifyBase + "token-id?token_id=" + strings.Repeat("9", 80), "", nil, false, 400, "token_id"},
		{"token id unknown", "GET", verifyBase + "token-id?token_id=999999", "", nil, false, 404, "no record"},
		{"unknown network", "GET", verifyBase + "token-id?token_id=1&blockchain=BITCOIN", "", nil, false, 400, "blockchain"},
		{"EOS has no such token", "GET", verifyBase + "token-id?token_id=1&blockchain=eos", "", nil, false, 404, "no record"},
		{"data unknown", "POST", verifyBase + "data", "application/json", map[string]any{"data": map[string]any{"never": "sealed"}}, false, 404, "no record"},
		{"update missing status", "PUT", updatePath, "application/json", map[string]any{"reference": "D-0b9c2f1e-5d7a-4c3b-8a9e-1f2d3c4b5a69"}, false, 400, "status is required"},
		{"update unknown ref", "PUT", updatePath, "application/json", map[string]any{"reference": "D-0b9c2f1e-5d7a-4c3b-8a9e-1f2d3c4b5a69", "status": "SUSPENDED"}, false, 404, "no record"},
		{"wrong method", "DELETE", verifyBase + "hash", "", nil, false, 405, "not allowed"},
		{"wrong method on post", "GET", authPath, "", nil, false, 405, "not allowed"},
		{"unknown path", "GET", "/nope", "", nil, false, 404, "no such operation"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sub, api := in.Sub, in.API
			if c.noKeys {
				sub, api = "", ""
			}
			r := in.call(c.method, c.path, sub, api, c.contentType, c.body)
			if r.Status != c.code {
				t.Fatalf("%d %s, want %d", r.Status, r.Raw, c.code)
			}
			if r.Body["success"] != false {
				t.Errorf("success is not false: %s", r.Raw)
			}
			var msg string
			if strings.HasPrefix(c.path, verifyBase) {
				msg, _ = r.Body["data"].(string)
				if _, has := r.Body["error"]; has {
					t.Errorf("verification error envelope has an error member: %s", r.Raw)
				}
			} else {
				msg, _ = r.Body["error"].(string)
				if v, has := r.Body["data"]; !has || v != nil {
					t.Errorf("error envelope: data must be null: %s", r.Raw)
				}
			}
			if !strings.Contains(msg, c.msg) {
				t.Errorf("message %q does not name %q", msg, c.msg)
			}
			if c.code == 405 && r.Header.Get("Allow") == "" {
				t.Error("405 without Allow")
			}
		})
	}
}

// finalState is where records end with the parts serve has.
var finalState = "COMPLETED"

// anyList is a decoded JSON array, or nil for anything else.
func anyList(v any) []any {
	l, _ := v.([]any)
	return l
}
