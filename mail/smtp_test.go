package mail_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/emersion/go-smtp"

	"seald.dev/seald"
	"seald.dev/seald/mail"
)

const (
	testFrom = "Seald Notariat – Prüfstelle <noreply@seald.example.com>"
	testRef  = "D-2b0d7f6e-6c3a-4e8e-9a4b-1f2e3d4c5b6a"
	testHash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	testLink = "https://verify.seald.example.com/v/D-2b0d7f6e-6c3a-4e8e-9a4b-1f2e3d4c5b6a?x=1&y=2"
	// A subject long enough to be folded, with characters from several scripts.
	testSubject = "Ihre Daten wurden versiegelt – 認証済み ✓ Zoë’s contract #42, please keep this message for your records"
)

func htmlMail() *seald.Mail {
	return &seald.Mail{
		Reference:        testRef,
		To:               []string{"Zoë Müller <zoe@example.com>", "bob@example.org"},
		Cc:               []string{"Ærlig Åse <aase@example.net>"},
		Subject:          testSubject,
		Body:             "<html><body><h1>Sealed</h1><p>Your data &amp; its hash are <b>safe</b>.</p></body></html>",
		HTML:             true,
		Hash:             testHash,
		VerificationLink: testLink,
	}
}

func textMail() *seald.Mail {
	return &seald.Mail{
		Reference:        testRef,
		To:               []string{"bob@example.org"},
		Subject:          "Your data has been authenticated",
		Body:             "Hello Bob,\nyour data is sealed.",
		Hash:             testHash,
		VerificationLink: testLink,
	}
}

// newSMTP returns a mail.SMTP for the in-process server, trusting its certificate.
func newSMTP(t *testing.T, s *smtpServer, scheme, query string, user *url.Userinfo) *mail.SMTP {
	t.Helper()
	u := url.URL{Scheme: scheme, User: user, Host: s.addr, RawQuery: query}
	m, err := mail.NewSMTP(u.String(), testFrom)
	if err != nil {
		t.Fatal(err)
	}
	m.TLSConfig = s.cert.ClientConfig()
	return m
}

// parsed is a received message taken apart.
type parsed struct {
	msg   *netmail.Message
	parts map[string]string // decoded body per media type
}

func parse(t *testing.T, data []byte) parsed {
	t.Helper()
	msg, err := netmail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the message does not parse: %v\n%s", err, data)
	}
	p := parsed{msg: msg, parts: map[string]string{}}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(mediaType, "multipart/") {
		p.parts[mediaType] = decodeBody(t, msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
		p.parts["@type"] = mediaType
		return p
	}
	p.parts["@type"] = mediaType
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := mr.NextPart() // decodes quoted-printable itself
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		pt, pparams, err := mime.ParseMediaType(part.Header.Get("Content-Type"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.EqualFold(pparams["charset"], "utf-8") {
			t.Errorf("part %s has charset %q, want UTF-8", pt, pparams["charset"])
		}
		p.parts[pt] = decodeBody(t, part.Header.Get("Content-Transfer-Encoding"), part)
	}
	return p
}

func decodeBody(t *testing.T, cte string, r io.Reader) string {
	t.Helper()
	if strings.EqualFold(cte, "quoted-printable") {
		r = quotedprintable.NewReader(r)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), "\r\n", "\n")
}

// decodedHeader decodes the RFC 2047 encoded-words of a header and checks that the raw header is pure ASCII,
// which is what the encoding is for.
func decodedHeader(t *testing.T, h netmail.Header, key string) string {
	t.Helper()
	raw := h.Get(key)
	for _, r := range raw {
		if r > 0x7e {
			t.Errorf("%s header is not 7-bit: %q", key, raw)
			break
		}
	}
	s, err := new(mime.WordDecoder).DecodeHeader(raw)
	if err != nil {
		t.Fatalf("%s header %q: %v", key, raw, err)
	}
	return s
}

func TestSMTPDeliversOverSTARTTLSWithAuth(t *testing.T) {
	srv := startSMTPServer(t, serverOpts{})
	m := newSMTP(t, srv, "smtp", "", url.UserPassword(testUser, testPass))

	id, err := m.Send(context.Background(), htmlMail())
	if err != nil {
		t.Fatal(err)
	}
	if want := "<" + testRef + "@seald.seald.example.com>"; id != want {
		t.Errorf("Message-ID %q, want %q", id, want)
	}
	got := srv.received()
	if len(got) != 1 {
		t.Fatalf("%d deliveries, want 1", len(got))
	}
	d := got[0]
	if !d.TLS {
		t.Error("the message was not sent over TLS (STARTTLS was offered)")
	}
	if d.AuthUser != testUser {
		t.Errorf("authenticated as %q, want %q", d.AuthUser, testUser)
	}
	if d.From != "noreply@seald.example.com" {
		t.Errorf("envelope sender %q", d.From)
	}
	wantRcpt := []string{"zoe@example.com", "bob@example.org", "aase@example.net"}
	if !slices.Equal(d.To, wantRcpt) {
		t.Errorf("envelope recipients %q, want %q (to and cc)", d.To, wantRcpt)
	}

	p := parse(t, d.Data)
	h := p.msg.Header
	if h.Get("Message-Id") != id {
		t.Errorf("Message-ID header %q, want %q", h.Get("Message-Id"), id)
	}
	if subj := decodedHeader(t, h, "Subject"); subj != testSubject {
		t.Errorf("subject %q, want %q", subj, testSubject)
	}
	if !strings.Contains(h.Get("Subject"), "=?UTF-8?") {
		t.Errorf("subject is not RFC 2047 encoded: %q", h.Get("Subject"))
	}
	from, err := h.AddressList("From")
	if err != nil || len(from) != 1 || from[0].Name != "Seald Notariat – Prüfstelle" ||
		from[0].Address != "noreply@seald.example.com" {
		t.Errorf("From %v (%v), raw %q", from, err, h.Get("From"))
	}
	to, err := h.AddressList("To")
	if err != nil || len(to) != 2 || to[0].Name != "Zoë Müller" || to[0].Address != "zoe@example.com" ||
		to[1].Address != "bob@example.org" {
		t.Errorf("To %v (%v), raw %q", to, err, h.Get("To"))
	}
	cc, err := h.AddressList("Cc")
	if err != nil || len(cc) != 1 || cc[0].Name != "Ærlig Åse" || cc[0].Address != "aase@example.net" {
		t.Errorf("Cc %v (%v), raw %q", cc, err, h.Get("Cc"))
	}
	decodedHeader(t, h, "From")
	decodedHeader(t, h, "To")
	if _, err := h.Date(); err != nil {
		t.Errorf("Date: %v", err)
	}
	if h.Get("Bcc") != "" {
		t.Errorf("a Bcc header leaked: %q", h.Get("Bcc"))
	}

	if p.parts["@type"] != "multipart/alternative" {
		t.Fatalf("content type %q, want multipart/alternative", p.parts["@type"])
	}
	text, html := p.parts["text/plain"], p.parts["text/html"]
	for _, want := range []string{"Sealed", "Your data & its hash are safe.", "Reference: " + testRef,
		"Hash: " + testHash, "Verify: " + testLink} {
		if !strings.Contains(text, want) {
			t.Errorf("text part lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "<b>") || strings.Contains(text, "&amp;") {
		t.Errorf("text part keeps markup:\n%s", text)
	}
	escaped := strings.ReplaceAll(testLink, "&", "&amp;")
	for _, want := range []string{"<h1>Sealed</h1>", `<a href="` + escaped + `">`, testRef, testHash} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML part lacks %q:\n%s", want, html)
		}
	}
	if i, j := strings.Index(html, testHash), strings.Index(html, "</body>"); i < 0 || j < i {
		t.Errorf("the footer is not inside the body element:\n%s", html)
	}
}

func TestSMTPPlainTextMessage(t *testing.T) {
	srv := startSMTPServer(t, serverOpts{})
	m := newSMTP(t, srv, "smtp", "tls=required", nil)
	if _, err := m.Send(context.Background(), textMail()); err != nil {
		t.Fatal(err)
	}
	d := srv.received()[0]
	if d.AuthUser != "" {
		t.Errorf("authenticated as %q without credentials", d.AuthUser)
	}
	p := parse(t, d.Data)
	if p.parts["@type"] != "text/plain" {
		t.Fatalf("content type %q, want text/plain", p.parts["@type"])
	}
	text := p.parts["text/plain"]
	if !strings.HasPrefix(text, "Hello Bob,\nyour data is sealed.\n") || !strings.Contains(text, "Verify: "+testLink) {
		t.Errorf("body:\n%s", text)
	}
	if p.msg.Header.Get("Cc") != "" {
		t.Errorf("Cc header without cc: %q", p.msg.Header.Get("Cc"))
	}
}

func TestSMTPImplicitTLS(t *testing.T) {
	srv := startSMTPServer(t, serverOpts{implicitTLS: true, noTLS: true})
	m := newSMTP(t, srv, "smtps", "", url.UserPassword(testUser, testPass))
	if _, err := m.Send(context.Background(), textMail()); err != nil {
		t.Fatal(err)
	}
	d := srv.received()[0]
	if !d.TLS || d.AuthUser != testUser {
		t.Errorf("TLS %v, user %q", d.TLS, d.AuthUser)
	}
}

func TestSMTPTLSNoneStaysInClear(t *testing.T) {
	srv := startSMTPServer(t, serverOpts{})
	m := newSMTP(t, srv, "smtp", "tls=none", nil)
	if _, err := m.Send(context.Background(), textMail()); err != nil {
		t.Fatal(err)
	}
	if srv.received()[0].TLS {
		t.Error("tls=none used STARTTLS")
	}
}

func TestSMTPRepeatedSendKeepsMessageID(t *testing.T) {
	srv := startSMTPServer(t, serverOpts{})
	m := newSMTP(t, srv, "smtp", "", nil)
	id1, err := m.Send(context.Background(), htmlMail())
	if err != nil {
		t.Fatal(err)
	}
	id2, err := m.Send(context.Background(), htmlMail())
	if err != nil {
		t.Fatal(err)
	}
	got := srv.received()
	if id1 != id2 || len(got) != 2 {
		t.Fatalf("ids %q %q, %d deliveries", id1, id2, len(got))
	}
	for _, d := range got {
		if h := parse(t, d.Data).msg.Header.Get("Message-Id"); h != id1 {
			t.Errorf("Message-ID %q, want %q", h, id1)
		}
	}
}

// TestSMTPErrorClassification checks what the pipeline retries (transient) and what it fails at once
// (permanent), and that the server's reply is in the error.
func TestSMTPErrorClassification(t *testing.T) {
	reply := func(code int, enh smtp.EnhancedCode, msg string) error {
		return &smtp.SMTPError{Code: code, EnhancedCode: enh, Message: msg}
	}
	cases := []struct {
		name            string
		mail, rcpt, dat error
		permanent       bool
		want            string
	}{
		{"451 at RCPT", nil, reply(451, smtp.EnhancedCode{4, 3, 0}, "greylisted, try later"), nil, false, "451 4.3.0 greylisted"},
		{"550 at RCPT", nil, reply(550, smtp.EnhancedCode{5, 1, 1}, "mailbox unavailable"), nil, true, "550 5.1.1 mailbox unavailable"},
		{"421 at MAIL", reply(421, smtp.EnhancedCode{4, 4, 5}, "too busy"), nil, nil, false, "421 4.4.5 too busy"},
		{"530 at MAIL (no credentials)", reply(530, smtp.EnhancedCode{5, 7, 0}, "authentication required"), nil, nil, false, "530 5.7.0 authentication required"},
		{"553 at MAIL", reply(553, smtp.EnhancedCode{5, 7, 1}, "sender rejected"), nil, nil, true, "553 5.7.1 sender rejected"},
		{"554 at DATA", nil, nil, reply(554, smtp.EnhancedCode{5, 6, 0}, "content rejected"), true, "554 5.6.0 content rejected"},
		{"452 at DATA", nil, nil, reply(452, smtp.EnhancedCode{4, 3, 1}, "storage full"), false, "452 4.3.1 storage full"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := startSMTPServer(t, serverOpts{})
			srv.fail(tc.mail, tc.rcpt, tc.dat)
			m := newSMTP(t, srv, "smtp", "", url.UserPassword(testUser, testPass))
			_, err := m.Send(context.Background(), htmlMail())
			if err == nil {
				t.Fatal("no error")
			}
			if got := seald.IsPermanent(err); got != tc.permanent {
				t.Errorf("IsPermanent = %v, want %v: %v", got, tc.permanent, err)
			}
			code, text, _ := strings.Cut(tc.want, " ")
			if !strings.Contains(err.Error(), code) || !strings.Contains(err.Error(), text) {
				t.Errorf("error lacks the server's reply %q: %v", tc.want, err)
			}
			if strings.Contains(err.Error(), testPass) {
				t.Errorf("error shows the password: %v", err)
			}
			if len(srv.received()) != 0 {
				t.Error("the server stored a message it rejected")
			}
		})
	}
}

// TestSMTPConcurrentSends runs sends side by side, as the pipeline's workers do, for the race detector and to
// show each gets its own session.
func TestSMTPConcurrentSends(t *testing.T) {
	srv := startSMTPServer(t, serverOpts{})
	m := newSMTP(t, srv, "smtp", "", url.UserPassword(testUser, testPass))
	const n = 4
	errs := make(chan error, n)
	for i := range n {
		go func() {
			msg := textMail()
			msg.Reference = fmt.Sprintf("D-%d", i)
			_, err := m.Send(context.Background(), msg)
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := len(srv.received()); got != n {
		t.Errorf("%d deliveries, want %d", got, n)
	}
}

func TestSMTPConnectionRefusedIsTransient(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	m, err := mail.NewSMTP("smtp://"+addr, testFrom)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Send(context.Background(), textMail())
	if err == nil || seald.IsPermanent(err) {
		t.Fatalf("want a transient error, got %v", err)
	}
	if !strings.Contains(err.Error(), "refused") {
		t.Errorf("error does not say the connection was refused: %v", err)
	}
}

func TestSMTPSetupFaultsAreTransient(t *testing.T) {
	t.Run("TLS required but not offered", func(t *testing.T) {
		srv := startSMTPServer(t, serverOpts{noTLS: true})
		m := newSMTP(t, srv, "smtp", "tls=required", nil)
		_, err := m.Send(context.Background(), textMail())
		if err == nil || seald.IsPermanent(err) || !strings.Contains(err.Error(), "STARTTLS") {
			t.Fatalf("want a transient STARTTLS error, got %v", err)
		}
		if len(srv.received()) != 0 {
			t.Error("the message went out in clear")
		}
	})
	t.Run("untrusted certificate", func(t *testing.T) {
		srv := startSMTPServer(t, serverOpts{})
		m := newSMTP(t, srv, "smtp", "", nil)
		m.TLSConfig = nil // the system roots do not know the test's certificate
		_, err := m.Send(context.Background(), textMail())
		if err == nil || seald.IsPermanent(err) || !strings.Contains(err.Error(), "certificate") {
			t.Fatalf("want a transient certificate error, got %v", err)
		}
		if len(srv.received()) != 0 {
			t.Error("the message went out over an unverified connection")
		}
	})
	t.Run("credentials refused", func(t *testing.T) {
		srv := startSMTPServer(t, serverOpts{})
		m := newSMTP(t, srv, "smtp", "", url.UserPassword(testUser, "wrong"))
		_, err := m.Send(context.Background(), textMail())
		if err == nil || seald.IsPermanent(err) || !strings.Contains(err.Error(), "535") {
			t.Fatalf("want a transient 535 error, got %v", err)
		}
	})
	t.Run("no AUTH without TLS", func(t *testing.T) {
		// The server offers no STARTTLS, so no AUTH either: the password must not be sent in clear.
		srv := startSMTPServer(t, serverOpts{noTLS: true})
		m := newSMTP(t, srv, "smtp", "", url.UserPassword(testUser, testPass))
		_, err := m.Send(context.Background(), textMail())
		if err == nil || seald.IsPermanent(err) {
			t.Fatalf("want a transient error, got %v", err)
		}
		if len(srv.received()) != 0 {
			t.Error("the message was sent without the configured authentication")
		}
	})
}

func TestSMTPCancelAbortsSession(t *testing.T) {
	srv := startSMTPServer(t, serverOpts{})
	in := make(chan struct{}, 1)
	srv.mu.Lock()
	srv.inData, srv.holdData = in, make(chan struct{})
	srv.mu.Unlock()
	m := newSMTP(t, srv, "smtp", "", nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-in // the server has the whole message and withholds its reply
		cancel()
	}()
	_, err := m.Send(ctx, textMail())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if seald.IsPermanent(err) {
		t.Error("a cancelled send is permanent")
	}
}

func TestSMTPRefusesHeaderInjection(t *testing.T) {
	srv := startSMTPServer(t, serverOpts{})
	m := newSMTP(t, srv, "smtp", "", nil)
	cases := map[string]func(*seald.Mail){
		"subject LF":       func(m *seald.Mail) { m.Subject = "Hi\nBcc: victim@example.com" },
		"subject CRLF":     func(m *seald.Mail) { m.Subject = "Hi\r\nBcc: victim@example.com" },
		"subject CR":       func(m *seald.Mail) { m.Subject = "Hi\rBcc: victim@example.com" },
		"to":               func(m *seald.Mail) { m.To = []string{"a@example.com\r\nBcc: victim@example.com"} },
		"cc":               func(m *seald.Mail) { m.Cc = []string{"Name\n <c@example.com>"} },
		"display name":     func(m *seald.Mail) { m.To = []string{"\"Evil\r\nBcc: v@example.com\" <a@example.com>"} },
		"reference":        func(m *seald.Mail) { m.Reference = "D-1>\r\nBcc: v@example.com" },
		"path reference":   func(m *seald.Mail) { m.Reference = "../../etc/passwd" },
		"no recipient":     func(m *seald.Mail) { m.To = nil },
		"bad address":      func(m *seald.Mail) { m.To = []string{"not an address"} },
		"javascript link":  func(m *seald.Mail) { m.VerificationLink = "javascript:alert(1)" },
		"NUL in subject":   func(m *seald.Mail) { m.Subject = "a\x00b" },
		"invalid UTF-8":    func(m *seald.Mail) { m.Subject = "a\xffb" },
		"relative link":    func(m *seald.Mail) { m.VerificationLink = "/v/D-1" },
		"empty reference":  func(m *seald.Mail) { m.Reference = "" },
		"comma in one to":  func(m *seald.Mail) { m.To = []string{"a@example.com, b@example.com"} },
		"nil mail pointer": nil,
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			var msg *seald.Mail
			if change != nil {
				msg = htmlMail()
				change(msg)
			}
			_, err := m.Send(context.Background(), msg)
			if seald.ErrorCode(err) != seald.EINVALID || !seald.IsPermanent(err) {
				t.Fatalf("want a permanent EINVALID error, got %v", err)
			}
		})
	}
	if n := srv.sessionCount(); n != 0 {
		t.Errorf("%d SMTP sessions for invalid messages, want none", n)
	}
}

func TestNewSMTP(t *testing.T) {
	valid := []string{
		"smtp://mail.example.com",
		"smtp://user:pa%2Fss@mail.example.com:2525?tls=required",
		"smtp://mail.example.com:25?tls=opportunistic",
		"smtp://127.0.0.1:1025?tls=none",
		"smtp://user:pass@localhost:1025?tls=none",
		"smtps://user:pass@mail.example.com",
		"smtps://mail.example.com:4650?tls=required",
		"smtp://[::1]:25/",
	}
	for _, u := range valid {
		m, err := mail.NewSMTP(u, "noreply@example.com")
		if err != nil {
			t.Errorf("NewSMTP(%q): %v", u, err)
			continue
		}
		if strings.Contains(m.String(), "pass") && strings.Contains(u, "pass") {
			t.Errorf("String() shows the password: %s", m)
		}
	}
	invalid := []string{
		"http://mail.example.com",
		"smtp://",
		"smtp://user:secretpw@mail.example.com?tls=maybe",
		"smtp://user:secretpw@mail.example.com?tsl=required",
		"smtp://user:secretpw@mail.example.com?tls=none",
		"smtps://user:secretpw@mail.example.com?tls=none",
		"smtp://mail.example.com:99999",
		"smtp://mail.example.com/path",
		"smtp://user:secretpw@mail.example.com:x%zz",
		"smtp://user:secretpw@ex ample.com",
	}
	for _, u := range invalid {
		_, err := mail.NewSMTP(u, "noreply@example.com")
		if seald.ErrorCode(err) != seald.EINVALID {
			t.Errorf("NewSMTP(%q) = %v, want EINVALID", u, err)
			continue
		}
		if strings.Contains(err.Error(), "secretpw") {
			t.Errorf("NewSMTP(%q) shows the password: %v", u, err)
		}
	}
	for _, from := range []string{"", "not an address", "Evil\r\nBcc: x@example.com <a@example.com>"} {
		if _, err := mail.NewSMTP("smtp://mail.example.com", from); seald.ErrorCode(err) != seald.EINVALID {
			t.Errorf("NewSMTP with sender %q = %v, want EINVALID", from, err)
		}
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	for _, spec := range []string{"", "outbox"} {
		m, err := mail.Open(spec, testFrom, dir)
		if err != nil {
			t.Fatal(err)
		}
		if o, ok := m.(*mail.Outbox); !ok || o.Dir() != dir {
			t.Errorf("Open(%q) = %T, want the outbox in %s", spec, m, dir)
		}
	}
	for _, spec := range []string{"smtp://mail.example.com", "smtps://u:p@mail.example.com"} {
		m, err := mail.Open(spec, testFrom, dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.(*mail.SMTP); !ok {
			t.Errorf("Open(%q) = %T, want *mail.SMTP", spec, m)
		}
	}
	for _, spec := range []string{"sendmail", "http://mail.example.com", "SMTP://mail.example.com", "file:///tmp"} {
		if _, err := mail.Open(spec, testFrom, dir); seald.ErrorCode(err) != seald.EINVALID {
			t.Errorf("Open(%q) = %v, want EINVALID", spec, err)
		}
	}
}
