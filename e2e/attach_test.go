package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	netmail "net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mailAttachment is one attached file of a message, as a mail client reads it.
type mailAttachment struct {
	name, mediaType string
	data            []byte
}

// mailAttachments reads a message with net/mail and mime/multipart, nested multiparts included, and returns
// its attachments.
func mailAttachments(t *testing.T, raw []byte) []mailAttachment {
	t.Helper()
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the message does not parse: %v", err)
	}
	var files []mailAttachment
	var walk func(h netmail.Header, body io.Reader)
	walk = func(h netmail.Header, body io.Reader) {
		mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
		if err != nil {
			t.Fatalf("Content-Type %q: %v", h.Get("Content-Type"), err)
		}
		if strings.HasPrefix(mt, "multipart/") {
			mr := multipart.NewReader(body, params["boundary"])
			for {
				p, err := mr.NextPart()
				if err == io.EOF {
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				walk(netmail.Header(p.Header), p)
			}
		}
		disp, dparams, _ := mime.ParseMediaType(h.Get("Content-Disposition"))
		if disp != "attachment" {
			return
		}
		b, _ := io.ReadAll(body)
		if strings.EqualFold(h.Get("Content-Transfer-Encoding"), "base64") {
			if b, err = base64.StdEncoding.DecodeString(strings.NewReplacer("\r", "", "\n", "").Replace(string(b))); err != nil {
				t.Fatalf("base64 attachment: %v", err)
			}
		}
		files = append(files, mailAttachment{name: dparams["filename"], mediaType: mt, data: b})
	}
	walk(msg.Header, msg.Body)
	return files
}

// TestAttachCredential is issue 42's deliverable 4 through the binary: a project set (through the API) to
// attach credentials e-mails each record it seals with its W3C VC 2.0 credential, which Digital Bazaar's
// libraries verify against the running service; a record sealed before the setting, or after it is turned
// off (through the CLI), gets its e-mail as before, with no attachment.
func TestAttachCredential(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := startServe(t, dir, nil)
	defer in.stop()
	seal := func(data any) string {
		t.Helper()
		r := in.post(authPath, map[string]any{"data": data, "to": "ada@example.com", "subject": "Your diploma"})
		if r.Status != 201 {
			t.Fatalf("seal: %d %s", r.Status, r.Raw)
		}
		ref := str(r.Body, "data.reference")
		in.waitState(ref, "COMPLETED", 120*time.Second)
		return ref
	}
	message := func(ref string) []byte {
		t.Helper()
		var found [][]byte
		for _, m := range outboxMessages(t, dir) {
			if m.Reference == ref {
				found = append(found, m.Raw)
			}
		}
		if len(found) != 1 {
			t.Fatalf("%d messages about %s in the outbox, want 1", len(found), ref)
		}
		return found[0]
	}
	// Every e-mail carries the data (docs/page.md, "The e-mail"); only a project that attaches credentials
	// adds the credential beside it.
	noAttachment := func(ref string) {
		t.Helper()
		raw := message(ref)
		files := mailAttachments(t, raw)
		if len(files) != 1 || files[0].name != ref+".json" || bytes.Contains(raw, []byte("application/vc")) {
			t.Errorf("the e-mail of %s, of a project that attaches no credential, has %d attachments (want its data alone):\n%s", ref, len(files), raw)
		}
	}

	before := seal(map[string]any{"name": "Grace Hopper", "degree": "PhD Mathematics"})
	noAttachment(before)

	r := in.call("PUT", "/tenant/update", in.Sub, in.API, "application/json", map[string]any{"attach_credential": true})
	if r.Status != 200 || field(r.Body, "data.project.attach_credential") != true {
		t.Fatalf("tenant update attach_credential: %d %s", r.Status, r.Raw)
	}
	ref := seal(map[string]any{"name": "Ada Lovelace", "degree": "MSc Mathematics", "graduated": "2024-06-30",
		"grades": map[string]any{"logic": 17.25}})
	files := mailAttachments(t, message(ref))
	if len(files) != 2 || files[0].name != ref+".json" {
		t.Fatalf("the e-mail of %s has %d attachments, want its data, then its credential", ref, len(files))
	}
	f := files[1]
	if f.name != ref+".credential.json" || f.mediaType != "application/vc" {
		t.Errorf("attachment %q of type %s, want %s.credential.json of type application/vc", f.name, f.mediaType, ref)
	}
	vcFile := filepath.Join(t.TempDir(), f.name)
	if err := os.WriteFile(vcFile, f.data, 0o600); err != nil {
		t.Fatal(err)
	}
	if res, ok := verifyVC(t, in, "vc", vcFile); !ok {
		t.Fatalf("the attached credential does not verify with tools/verify-vc: %v\n%s", res, f.data)
	}
	var vc map[string]any
	if err := json.Unmarshal(f.data, &vc); err != nil || field(vc, "credentialSubject.degree") != "MSc Mathematics" ||
		vc["id"] != "urn:seald:"+ref {
		t.Errorf("the attached credential is not the record's: %v %s", err, f.data)
	}
	// The credential the API gives for the record states the same (only its proof's time and value differ).
	api := in.get("/verification/api/v1/credential?reference=" + ref)
	var env struct {
		Data struct{ Credential map[string]any }
	}
	json.Unmarshal(api.Raw, &env)
	for _, m := range []string{"credentialSubject", "evidence", "credentialStatus", "issuer", "validFrom"} {
		a, _ := json.Marshal(env.Data.Credential[m])
		b, _ := json.Marshal(vc[m])
		if !bytes.Equal(a, b) {
			t.Errorf("%s of the attached credential %s, the API's %s", m, b, a)
		}
	}

	// Turned off through the CLI, the service stopped meanwhile.
	in.stop()
	var keys struct {
		BusinessID string `json:"business_id"`
		ProjectID  string `json:"project_id"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "credentials.json"))), &keys); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, t.TempDir(), "tenant", "update", "--data-dir", dir, "--business", keys.BusinessID,
		"--project", keys.ProjectID, "--attach-credential=false")
	if code != 0 || !strings.Contains(out, "attach credential false") {
		t.Fatalf("tenant update --attach-credential=false: exit %d\n%s%s", code, out, errOut)
	}
	in = startServe(t, dir, nil)
	after := seal(map[string]any{"name": "Alan Turing"})
	noAttachment(after)
}
