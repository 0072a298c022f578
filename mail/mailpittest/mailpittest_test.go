package mailpittest_test

import (
	"strings"
	"testing"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"seald.dev/seald/mail/mailpittest"
)

// send submits a raw message with an SMTP client other than package mail's, so that the helper is tested on
// its own.
func send(t *testing.T, s *mailpittest.Server, to, subject string) {
	t.Helper()
	c, err := smtp.DialStartTLS(s.SMTPAddr, s.TLSConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Auth(sasl.NewPlainClient("", mailpittest.Username, mailpittest.Password)); err != nil {
		t.Fatal(err)
	}
	msg := "From: a@example.com\r\nTo: " + to + "\r\nSubject: " + subject + "\r\nMessage-ID: <" + subject +
		"@test>\r\n\r\nbody\r\n"
	if err := c.SendMail("a@example.com", []string{to, "hidden@example.com"}, strings.NewReader(msg)); err != nil {
		t.Fatal(err)
	}
	if err := c.Quit(); err != nil {
		t.Fatal(err)
	}
}

func TestServer(t *testing.T) {
	s := mailpittest.Start(t)
	send(t, s, "b@example.com", "first")

	msgs, err := s.Messages()
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 {
		t.Fatalf("%d messages", len(msgs))
	}
	m := msgs[0]
	if m.Subject != "first" || m.MessageID != "first@test" || m.Username != mailpittest.Username ||
		len(m.To) != 1 || m.To[0].Address != "b@example.com" || m.Text != "body\n" {
		t.Errorf("message %+v", m)
	}
	if len(m.Bcc) != 1 || m.Bcc[0].Address != "hidden@example.com" {
		t.Errorf("envelope-only recipient not shown as Bcc: %+v", m.Bcc)
	}
	h, err := s.Headers(m.ID)
	if err != nil || len(h["Subject"]) != 1 || h["Subject"][0] != "first" {
		t.Errorf("headers %v, %v", h, err)
	}
	raw, err := s.Raw(m.ID)
	if err != nil || !strings.Contains(string(raw), "Subject: first\r\n") {
		t.Errorf("raw %q, %v", raw, err)
	}

	s.Restart()
	send(t, s, "c@example.com", "second")
	msgs, err = s.Messages()
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Subject != "first" || msgs[1].Subject != "second" {
		t.Fatalf("after restart: %+v, want first then second", msgs)
	}

	if err := s.DeleteAll(); err != nil {
		t.Fatal(err)
	}
	if msgs, err := s.Messages(); err != nil || len(msgs) != 0 {
		t.Errorf("after DeleteAll: %d messages, %v", len(msgs), err)
	}
}

func TestPlainURLNeedsNoCertificate(t *testing.T) {
	s := mailpittest.Start(t)
	if !strings.HasSuffix(s.PlainURL, "?tls=none") || !strings.Contains(s.SMTPURL, "tls=required") {
		t.Errorf("SMTPURL %s, PlainURL %s", s.SMTPURL, s.PlainURL)
	}
	c, err := smtp.Dial(s.SMTPAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SendMail("a@example.com", []string{"b@example.com"}, strings.NewReader("Subject: x\r\n\r\ny\r\n")); err != nil {
		t.Fatalf("plain submission refused: %v", err)
	}
}
