package mail_test

import (
	"bytes"
	"context"
	"mime"
	netmail "net/mail"
	"strings"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/mail"
	"seald.dev/seald/mail/mailpittest"
)

// These tests deliver to a real mailpit (see package mailpittest); they skip when SEALD_TEST_MAILPIT is unset.

func mailpitSMTP(t *testing.T, mp *mailpittest.Server, rawURL string) *mail.SMTP {
	t.Helper()
	m, err := mail.NewSMTP(rawURL, testFrom)
	if err != nil {
		t.Fatal(err)
	}
	m.TLSConfig = mp.TLSConfig()
	return m
}

func delivered(t *testing.T, mp *mailpittest.Server) []mailpittest.Message {
	t.Helper()
	msgs, err := mp.Messages()
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func TestMailpitSTARTTLSWithAuth(t *testing.T) {
	mp := mailpittest.Start(t)
	m := mailpitSMTP(t, mp, mp.SMTPURL)
	id, err := m.Send(context.Background(), htmlMail())
	if err != nil {
		t.Fatal(err)
	}

	msgs := delivered(t, mp)
	if len(msgs) != 1 {
		t.Fatalf("mailpit holds %d messages, want 1", len(msgs))
	}
	got := msgs[0]
	if "<"+got.MessageID+">" != id {
		t.Errorf("Message-ID %q, Send returned %q", got.MessageID, id)
	}
	if got.Username != mailpittest.Username {
		t.Errorf("SMTP user %q, want %q: AUTH did not happen", got.Username, mailpittest.Username)
	}
	if got.Subject != testSubject {
		t.Errorf("subject %q, want %q", got.Subject, testSubject)
	}
	if got.From == nil || got.From.Name != "Seald Notariat – Prüfstelle" || got.From.Address != "noreply@seald.example.com" {
		t.Errorf("From %+v", got.From)
	}
	wantTo := []mailpittest.Address{{Name: "Zoë Müller", Address: "zoe@example.com"}, {Address: "bob@example.org"}}
	if !equalAddrs(got.To, wantTo) {
		t.Errorf("To %+v, want %+v", got.To, wantTo)
	}
	if wantCc := []mailpittest.Address{{Name: "Ærlig Åse", Address: "aase@example.net"}}; !equalAddrs(got.Cc, wantCc) {
		t.Errorf("Cc %+v, want %+v", got.Cc, wantCc)
	}
	if len(got.Bcc) != 0 {
		t.Errorf("envelope recipients beyond to and cc: %+v", got.Bcc)
	}
	for _, want := range []string{"Your data & its hash are safe.", "Reference: " + testRef, "Hash: " + testHash,
		"Verify: " + testLink} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("text part lacks %q:\n%s", want, got.Text)
		}
	}
	for _, want := range []string{"<h1>Sealed</h1>", `href="` + strings.ReplaceAll(testLink, "&", "&amp;") + `"`, testHash} {
		if !strings.Contains(got.HTML, want) {
			t.Errorf("HTML part lacks %q:\n%s", want, got.HTML)
		}
	}

	// The raw message as mailpit stored it: RFC 2047 in the headers, multipart/alternative.
	raw, err := mp.Raw(got.ID)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if s := msg.Header.Get("Subject"); !strings.HasPrefix(s, "=?UTF-8?q?") {
		t.Errorf("raw subject not RFC 2047 encoded: %q", s)
	}
	if mt, _, _ := mime.ParseMediaType(msg.Header.Get("Content-Type")); mt != "multipart/alternative" {
		t.Errorf("content type %q", mt)
	}
}

func TestMailpitPlainWithoutTLS(t *testing.T) {
	mp := mailpittest.Start(t)
	m, err := mail.NewSMTP(mp.PlainURL, "noreply@seald.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Send(context.Background(), textMail()); err != nil {
		t.Fatal(err)
	}
	got := delivered(t, mp)
	if len(got) != 1 {
		t.Fatalf("%d messages", len(got))
	}
	if got[0].HTML != "" || !strings.HasPrefix(got[0].Text, "Hello Bob,\nyour data is sealed.") ||
		!strings.Contains(got[0].Text, testLink) {
		t.Errorf("text %q, html %q", got[0].Text, got[0].HTML)
	}
	if got[0].Username != "" || got[0].From.Name != "" {
		t.Errorf("user %q, from %+v", got[0].Username, got[0].From)
	}
}

func TestMailpitImplicitTLS(t *testing.T) {
	mp := mailpittest.Start(t, mailpittest.WithImplicitTLS())
	if !strings.HasPrefix(mp.SMTPURL, "smtps://") {
		t.Fatalf("SMTPURL %s", mp.SMTPURL)
	}
	m := mailpitSMTP(t, mp, mp.SMTPURL)
	if _, err := m.Send(context.Background(), htmlMail()); err != nil {
		t.Fatal(err)
	}
	if got := delivered(t, mp); len(got) != 1 || got[0].Username != mailpittest.Username {
		t.Fatalf("delivered %+v", got)
	}
}

// TestMailpitRepeatedSend shows what a repeat looks like to the receiver: a second copy with the same
// Message-ID, by which it can be recognised.
func TestMailpitRepeatedSend(t *testing.T) {
	mp := mailpittest.Start(t)
	m := mailpitSMTP(t, mp, mp.SMTPURL)
	for range 2 {
		if _, err := m.Send(context.Background(), textMail()); err != nil {
			t.Fatal(err)
		}
	}
	got := delivered(t, mp)
	if len(got) != 2 || got[0].MessageID != got[1].MessageID {
		t.Fatalf("delivered %d messages, ids %v", len(got), got)
	}
}

func TestMailpitRejections(t *testing.T) {
	mp := mailpittest.Start(t, mailpittest.WithChaos())
	m := mailpitSMTP(t, mp, mp.SMTPURL)
	cases := []struct {
		name      string
		chaos     mailpittest.Chaos
		permanent bool
		code      string
	}{
		{"451 at RCPT", mailpittest.Chaos{Recipient: mailpittest.Trigger{ErrorCode: 451, Probability: 100}}, false, "451"},
		{"550 at RCPT", mailpittest.Chaos{Recipient: mailpittest.Trigger{ErrorCode: 550, Probability: 100}}, true, "550"},
		{"421 at MAIL", mailpittest.Chaos{Sender: mailpittest.Trigger{ErrorCode: 421, Probability: 100}}, false, "421"},
		{"535 at AUTH", mailpittest.Chaos{Authentication: mailpittest.Trigger{ErrorCode: 535, Probability: 100}}, false, "535"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := mp.SetChaos(tc.chaos); err != nil {
				t.Fatal(err)
			}
			_, err := m.Send(context.Background(), htmlMail())
			if err == nil {
				t.Fatal("no error")
			}
			if seald.IsPermanent(err) != tc.permanent {
				t.Errorf("IsPermanent = %v, want %v: %v", seald.IsPermanent(err), tc.permanent, err)
			}
			if !strings.Contains(err.Error(), tc.code) {
				t.Errorf("error lacks the reply %s: %v", tc.code, err)
			}
		})
	}
	if err := mp.SetChaos(mailpittest.Chaos{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Send(context.Background(), htmlMail()); err != nil {
		t.Fatalf("after the faults end: %v", err)
	}
	if got := delivered(t, mp); len(got) != 1 {
		t.Errorf("%d messages delivered, want only the last one", len(got))
	}
}

// TestMailpitOutage stops the server (connection refused, transient) and brings it back on the same port
// with its messages.
func TestMailpitOutage(t *testing.T) {
	mp := mailpittest.Start(t)
	m := mailpitSMTP(t, mp, mp.SMTPURL)
	if _, err := m.Send(context.Background(), textMail()); err != nil {
		t.Fatal(err)
	}
	mp.Stop()
	_, err := m.Send(context.Background(), htmlMail())
	if err == nil || seald.IsPermanent(err) {
		t.Fatalf("with the server down: %v, want a transient error", err)
	}
	mp.Restart()
	if _, err := m.Send(context.Background(), htmlMail()); err != nil {
		t.Fatalf("after restart: %v", err)
	}
	if got := delivered(t, mp); len(got) != 2 {
		t.Errorf("%d messages after restart, want 2 (one from before)", len(got))
	}
}

func equalAddrs(a, b []mailpittest.Address) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !strings.EqualFold(a[i].Address, b[i].Address) {
			return false
		}
	}
	return true
}
