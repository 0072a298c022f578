package main

import (
	"bytes"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// secrets are byte strings that open, or are, an erased record's data, by name.
type secrets map[string][]byte

// leftOnDisk reads every file under dir as raw bytes and lists where any secret is found.
func leftOnDisk(t *testing.T, dir string, s secrets) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // deleted meanwhile by the running service
		}
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		for name, v := range s {
			if bytes.Contains(b, v) {
				found = append(found, rel+": "+name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(found)
	return found
}

// windows are three 48-byte pieces (start, middle, end) of b, each a secret of its own, so that a copy cut
// across pages is found in part.
func windows(name string, b []byte, s secrets) {
	for i, at := range []int{0, len(b)/2 - 24, len(b) - 48} {
		s[name+" ["+string(rune('a'+i))+"]"] = b[at : at+48]
	}
}

// storedSecrets reads a record's wrapped data key and password hash from the SQLite database, on a
// connection of its own, closed on return (an open reader would hold the log's checkpoint back).
func storedSecrets(t *testing.T, dataDir, ref string) (key, hash string) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dataDir, "seald.db")+"?_pragma=query_only(1)&_busy_timeout=15000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`SELECT data_key, password_hash FROM records WHERE reference = ?`, ref).Scan(&key, &hash); err != nil {
		t.Fatal(err)
	}
	return key, hash
}

// eraseJobsLeft counts the record's erase jobs not done yet.
func eraseJobsLeft(t *testing.T, dataDir, ref string) int {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dataDir, "seald.db")+"?_pragma=query_only(1)&_busy_timeout=15000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM jobs WHERE reference = ? AND kind = 'erase'`, ref).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestErasureLeavesNothingOnDisk is issue 30's test on the embedded defaults: a record sealed with a password,
// a subject and a body that carry markers is erased, and then, while serve runs (once the erase job is
// done) and after it stops, no file under the data dir holds its wrapped data key, its envelope, its
// password hash, its plaintext or the markers of its e-mail. A record sealed beside it still downloads and
// its e-mail is still in the outbox.
func TestErasureLeavesNothingOnDisk(t *testing.T) {
	dir := t.TempDir()
	in := startServe(t, dir, nil)
	kept := in.post(authPath, map[string]any{"data": map[string]any{"name": "ZQXKEPTDATA"}, "to": "kept@example.com",
		"subject": "ZQXKEPTSUBJECT", "body": "ZQXKEPTBODY"})
	if kept.Status != 201 {
		t.Fatalf("seal: %d %s", kept.Status, kept.Raw)
	}
	keptRef := str(kept.Body, "data.reference")
	r := in.post(authPath, map[string]any{"data": map[string]any{"patient": "ZQXMARKDATA Jane Roe"}, "password": "s3cret-pw",
		"to": "zqxmarkto@example.com", "subject": "ZQXMARKSUBJECT", "body": "ZQXMARKBODY"})
	if r.Status != 201 {
		t.Fatalf("seal: %d %s", r.Status, r.Raw)
	}
	ref := str(r.Body, "data.reference")
	cid := str(in.waitState(ref, "COMPLETED", 90*time.Second), "cid")
	in.waitState(keptRef, "COMPLETED", 90*time.Second)

	key, hash := storedSecrets(t, dir, ref)
	code, envelope := fetch(t, in.URL+"/ipfs/"+cid)
	if code != 200 || len(envelope) < 48 || key == "" || !strings.HasPrefix(hash, "$argon2id$") {
		t.Fatalf("before the erasure: envelope %d (%d bytes), key %q, hash %q", code, len(envelope), key, hash)
	}
	s := secrets{"wrapped data key": []byte(key), "plaintext": []byte("ZQXMARKDATA"), "subject": []byte("ZQXMARKSUBJECT"),
		"body": []byte("ZQXMARKBODY"), "recipient": []byte("zqxmarkto@example.com")}
	s["password hash"] = []byte(hash[strings.LastIndexByte(hash, '$')+1:])
	windows("envelope", envelope, s)
	if found := leftOnDisk(t, dir, s); len(found) == 0 {
		t.Fatal("no file holds any secret before the erasure: the search cannot see them")
	}

	if e := in.post("/authentication/erase", map[string]any{"reference": ref, "reason": "the holder asked"}); e.Status != 200 {
		t.Fatalf("erase: %d %s", e.Status, e.Raw)
	}
	deadline := time.Now().Add(60 * time.Second)
	for eraseJobsLeft(t, dir, ref) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the erase job has not finished\n%s", in.logText())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if found := leftOnDisk(t, dir, s); len(found) > 0 {
		t.Errorf("while serve runs, after the erase job, the data dir still holds:\n%s", strings.Join(found, "\n"))
	}
	if dl := in.get("/svc-data/data/download?reference=" + keptRef); dl.Status != 200 || !strings.Contains(string(dl.Raw), "ZQXKEPTDATA") {
		t.Errorf("download of the other record: %d %s", dl.Status, dl.Raw)
	}
	in.stop()
	if found := leftOnDisk(t, dir, s); len(found) > 0 {
		t.Errorf("after serve stopped, the data dir still holds:\n%s", strings.Join(found, "\n"))
	}
	var refs []string
	for _, m := range outboxMessages(t, dir) {
		refs = append(refs, m.Reference)
		if m.Reference == keptRef && !bytes.Contains(m.Raw, []byte("ZQXKEPTSUBJECT")) {
			t.Errorf("the other record's message lost its subject:\n%s", m.Raw)
		}
	}
	if !slices.Contains(refs, keptRef) || slices.Contains(refs, ref) {
		t.Errorf("the outbox holds messages of %v, want %s's and not %s's", refs, keptRef, ref)
	}
	sent := readFile(t, filepath.Join(dir, "outbox", "sent.log"))
	if !strings.Contains(sent, " "+ref+" ") || !strings.Contains(sent, " erased ") {
		t.Errorf("sent.log does not say a message of %s was sent and erased:\n%s", ref, sent)
	}
}
