package mail_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	netmail "net/mail"
	"strings"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/mail/mailpittest"
)

// testCredential stands for a record's credential: JSON with characters a 7-bit transport would break.
var testCredential = []byte(`{"@context":["https://www.w3.org/ns/credentials/v2"],"credentialSubject":{"name":"Zoë Müller"}}`)

func withCredential(m *seald.Mail) *seald.Mail {
	m.Attachments = []seald.MailAttachment{{Name: m.Reference + ".credential.json", ContentType: "application/vc", Data: testCredential}}
	return m
}

// attachment is one file of a message, as a mail client reads it.
type attachment struct {
	name, mediaType string
	data            []byte
}

// readMessage parses a message with net/mail and mime/multipart, walking nested multiparts: the text parts
// by media type, and the attachments.
func readMessage(t *testing.T, raw []byte) (texts map[string]string, files []attachment) {
	t.Helper()
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the message does not parse: %v", err)
	}
	texts = map[string]string{}
	var walk func(h map[string][]string, body io.Reader)
	walk = func(h map[string][]string, body io.Reader) {
		header := netmail.Header(h)
		mt, params, err := mime.ParseMediaType(header.Get("Content-Type"))
		if err != nil {
			t.Fatalf("Content-Type %q: %v", header.Get("Content-Type"), err)
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
				walk(p.Header, p)
			}
		}
		b, err := io.ReadAll(body)
		if err != nil {
			t.Fatal(err)
		}
		if strings.EqualFold(header.Get("Content-Transfer-Encoding"), "base64") {
			if b, err = base64.StdEncoding.DecodeString(strings.NewReplacer("\r", "", "\n", "").Replace(string(b))); err != nil {
				t.Fatalf("base64 part: %v", err)
			}
		}
		disp, dparams, _ := mime.ParseMediaType(header.Get("Content-Disposition"))
		if disp == "attachment" {
			files = append(files, attachment{name: dparams["filename"], mediaType: mt, data: b})
			return
		}
		texts[mt] = string(b)
	}
	walk(msg.Header, msg.Body)
	return texts, files
}

func checkCredentialAttached(t *testing.T, raw []byte) {
	t.Helper()
	texts, files := readMessage(t, raw)
	if len(files) != 1 {
		t.Fatalf("%d attachments, want 1", len(files))
	}
	f := files[0]
	if f.name != testRef+".credential.json" || f.mediaType != "application/vc" || !bytes.Equal(f.data, testCredential) {
		t.Errorf("attachment %q (%s): %q", f.name, f.mediaType, f.data)
	}
	if !strings.Contains(texts["text/plain"], "Reference: "+testRef) {
		t.Errorf("the text part is gone or changed: %q", texts)
	}
}

func TestOutboxAttachesCredential(t *testing.T) {
	for _, m := range []*seald.Mail{textMail(), htmlMail()} {
		t.Run(map[bool]string{false: "text", true: "html"}[m.HTML], func(t *testing.T) {
			o := newOutbox(t)
			if _, err := o.Send(context.Background(), withCredential(m)); err != nil {
				t.Fatal(err)
			}
			msgs := messages(t, o)
			if len(msgs) != 1 {
				t.Fatalf("%d messages, want 1", len(msgs))
			}
			checkCredentialAttached(t, msgs[0].Raw)
			if m.HTML {
				if texts, _ := readMessage(t, msgs[0].Raw); !strings.Contains(texts["text/html"], testHash) {
					t.Errorf("the HTML part is gone: %q", texts)
				}
			}
		})
	}
}

func TestOutboxWithoutAttachmentHasNone(t *testing.T) {
	o := newOutbox(t)
	if _, err := o.Send(context.Background(), textMail()); err != nil {
		t.Fatal(err)
	}
	raw := messages(t, o)[0].Raw
	if _, files := readMessage(t, raw); len(files) != 0 || bytes.Contains(raw, []byte("multipart/mixed")) {
		t.Errorf("a message without attachments has %d, or is multipart/mixed:\n%s", len(files), raw)
	}
}

func TestAttachmentRefused(t *testing.T) {
	for _, a := range []seald.MailAttachment{
		{Name: "a\r\nBcc: x@example.com", ContentType: "application/vc", Data: testCredential},
		{Name: "../x.json", ContentType: "application/vc", Data: testCredential},
		{Name: "", ContentType: "application/vc"},
		{Name: "x.json", ContentType: "application/vc; x=\"\r\n\""},
		{Name: "x.json", ContentType: "not a type"},
	} {
		o := newOutbox(t)
		m := textMail()
		m.Attachments = []seald.MailAttachment{a}
		_, err := o.Send(context.Background(), m)
		if seald.ErrorCode(err) != seald.EINVALID || !seald.IsPermanent(err) {
			t.Errorf("attachment %q (%q): %v, want a permanent EINVALID", a.Name, a.ContentType, err)
		}
		if n := len(messages(t, o)); n != 0 {
			t.Errorf("attachment %q: the refused message was written", a.Name)
		}
	}
}

func TestMailpitAttachment(t *testing.T) {
	mp := mailpittest.Start(t)
	m := mailpitSMTP(t, mp, mp.SMTPURL)
	if _, err := m.Send(context.Background(), withCredential(htmlMail())); err != nil {
		t.Fatal(err)
	}
	msgs := delivered(t, mp)
	if len(msgs) != 1 {
		t.Fatalf("mailpit holds %d messages, want 1", len(msgs))
	}
	raw, err := mp.Raw(msgs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	checkCredentialAttached(t, raw)
}
