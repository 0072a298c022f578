package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"seald.dev/seald"
)

var _ seald.Mailer = (*SMTP)(nil)

// TLS policies of an smtp:// URL (?tls=...).
const (
	TLSRequired      = "required"      // STARTTLS or fail: never send in clear
	TLSOpportunistic = "opportunistic" // STARTTLS when the server offers it (the default)
	TLSNone          = "none"          // never STARTTLS, for a relay on a trusted network or loopback
)

// DefaultTimeout bounds the connection and each command of a session when SMTP.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// SMTP is the production Mailer: it submits each message to a mail server, one session per message.
//
// It is configured from a URL:
//
//	smtp://[user:pass@]host[:port][?tls=required|opportunistic|none]   port 587 by default, STARTTLS
//	smtps://[user:pass@]host[:port]                                    port 465 by default, implicit TLS
//
// User and password are percent-decoded. With credentials the client authenticates with PLAIN or LOGIN
// (whichever the server offers, PLAIN first), and only over TLS or to a loopback server, so that a password
// never crosses a network in clear.
//
// Errors: a 5xx reply to the message's own transaction (MAIL FROM, RCPT TO, DATA) is a permanent rejection and
// is wrapped with seald.Permanent. Everything else is transient and retried by the pipeline: refused
// connections, timeouts, TLS trouble, 4xx replies, and also 5xx replies while setting up the session (greeting,
// EHLO, STARTTLS, AUTH) and 530 "authentication required", because those say the server or seald's
// configuration is wrong, not the record, and an operator can mend them while the pipeline backs off. Error
// texts include the server's reply.
//
// Set the exported fields before the first Send; SMTP is safe for concurrent use after that.
type SMTP struct {
	// TLSConfig, when set, is used for STARTTLS and implicit TLS instead of the system's roots (tests set
	// RootCAs to their own CA, or InsecureSkipVerify). Its ServerName defaults to the URL's host.
	TLSConfig *tls.Config
	// Timeout bounds the connection and each command; DefaultTimeout when zero.
	Timeout time.Duration
	// HELO is the name given in EHLO; the machine's host name when empty.
	HELO string

	host, user, pass string
	port             int
	implicitTLS      bool
	policy           string
	redacted         string
	c                *composer
}

// NewSMTP parses rawURL (see SMTP) and the sender from (--mail-from, optionally with a display name). Every
// fault is EINVALID; the password never appears in an error.
func NewSMTP(rawURL, from string) (*SMTP, error) {
	c, err := newComposer(from)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Error repeats the whole URL, password included: keep only its reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, seald.Errorf(seald.EINVALID, "mail: SMTP URL: %v", err)
	}
	s := &SMTP{c: c, redacted: u.Redacted()}
	switch u.Scheme {
	case "smtp":
		s.port, s.policy = 587, TLSOpportunistic
	case "smtps":
		s.port, s.implicitTLS = 465, true
	default:
		return nil, seald.Errorf(seald.EINVALID, "mail: SMTP URL %s: the scheme must be smtp or smtps", s.redacted)
	}
	if u.Opaque != "" || (u.Path != "" && u.Path != "/") || u.Fragment != "" {
		return nil, seald.Errorf(seald.EINVALID, "mail: SMTP URL %s: want scheme://[user:pass@]host[:port]", s.redacted)
	}
	s.host = u.Hostname()
	if s.host == "" {
		return nil, seald.Errorf(seald.EINVALID, "mail: SMTP URL %s: no host", s.redacted)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, seald.Errorf(seald.EINVALID, "mail: SMTP URL %s: bad port %q", s.redacted, p)
		}
		s.port = n
	}
	if u.User != nil {
		s.user = u.User.Username()
		s.pass, _ = u.User.Password()
	}
	for k, v := range u.Query() {
		if k != "tls" || len(v) != 1 {
			// A mistyped parameter must not silently leave the connection less protected than meant.
			return nil, seald.Errorf(seald.EINVALID, "mail: SMTP URL %s: unknown or repeated parameter %q", s.redacted, k)
		}
		switch p := v[0]; {
		case s.implicitTLS && p != TLSRequired:
			return nil, seald.Errorf(seald.EINVALID, "mail: SMTP URL %s: smtps is always TLS", s.redacted)
		case p == TLSRequired || p == TLSOpportunistic || p == TLSNone:
			if !s.implicitTLS {
				s.policy = p
			}
		default:
			return nil, seald.Errorf(seald.EINVALID,
				"mail: SMTP URL %s: tls must be required, opportunistic or none, not %q", s.redacted, p)
		}
	}
	if s.user != "" && s.policy == TLSNone && !isLoopback(s.host) {
		return nil, seald.Errorf(seald.EINVALID,
			"mail: SMTP URL %s: credentials with tls=none would cross the network in clear", s.redacted)
	}
	return s, nil
}

// isLoopback reports whether host names this machine.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// String returns the server's URL with the password hidden, for logs.
func (s *SMTP) String() string { return s.redacted }

// Send submits the message of m in a session of its own and returns its Message-ID. Cancelling ctx aborts
// the session at once.
//
// What can still duplicate: when the connection drops after the server has received the whole message but
// before its final reply arrives, seald cannot know the message was accepted, returns a transient error, and a
// retry sends it again. The repeat carries the same Message-ID, so mail clients can recognise it.
func (s *SMTP) Send(ctx context.Context, m *seald.Mail) (string, error) {
	b, err := s.c.compose(m)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client, err := s.client(ctx)
	if err != nil {
		return "", fmt.Errorf("mail: smtp %s: %w", s.addr(), err)
	}
	err = client.DialAndSendWithContext(ctx, b.msg)
	if b.msg.IsDelivered() {
		// The server took the message; a failure after that (RSET, QUIT) must not cause a second copy.
		return b.messageID, nil
	}
	if err == nil {
		return "", fmt.Errorf("mail: smtp %s: the message of %s was not delivered", s.addr(), m.Reference)
	}
	if cerr := ctx.Err(); cerr != nil {
		err = errors.Join(cerr, err)
	}
	err = fmt.Errorf("mail: smtp %s: send %s: %w", s.addr(), m.Reference, err)
	if rejected(err) {
		return "", seald.Permanent(err)
	}
	return "", err
}

// rejected reports whether err is the server's 5xx answer to the message's transaction. 530 (authentication
// required, RFC 4954) is the exception: it says seald lacks credentials, which the operator mends.
func rejected(err error) bool {
	var se *gomail.SendError
	if !errors.As(err, &se) {
		return false // no transaction yet: a fault of the connection or of the session's setup
	}
	code := se.ErrorCode()
	return code >= 500 && code < 600 && code != 530
}

func (s *SMTP) addr() string { return net.JoinHostPort(s.host, strconv.Itoa(s.port)) }

// client configures a go-mail client for one session. Its dialer ties the connection to ctx, so that a
// cancelled context ends a session that is waiting on the server (go-mail itself honours ctx only while
// dialling).
func (s *SMTP) client(ctx context.Context) (*gomail.Client, error) {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if s.TLSConfig != nil {
		tlsConfig = s.TLSConfig.Clone()
	}
	if tlsConfig.ServerName == "" {
		tlsConfig.ServerName = s.host
	}
	dial := func(dctx context.Context, network, address string) (net.Conn, error) {
		d := &net.Dialer{Timeout: timeout}
		var (
			conn net.Conn
			err  error
		)
		if s.implicitTLS {
			conn, err = (&tls.Dialer{NetDialer: d, Config: tlsConfig}).DialContext(dctx, network, address)
		} else {
			conn, err = d.DialContext(dctx, network, address)
		}
		if err != nil {
			return nil, err
		}
		// The session is over when Send returns, which cancels ctx: closing then is harmless.
		context.AfterFunc(ctx, func() { _ = conn.Close() })
		return conn, nil
	}
	opts := []gomail.Option{
		gomail.WithPort(s.port),
		gomail.WithTimeout(timeout),
		gomail.WithTLSConfig(tlsConfig),
		gomail.WithDialContextFunc(dial),
	}
	switch {
	case s.implicitTLS:
		// The dialer does the TLS handshake; go-mail must not try STARTTLS inside it.
		opts = append(opts, gomail.WithSSL(), gomail.WithTLSPolicy(gomail.NoTLS))
	case s.policy == TLSRequired:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	case s.policy == TLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if s.HELO != "" {
		opts = append(opts, gomail.WithHELO(s.HELO))
	}
	if s.user != "" {
		opts = append(opts,
			gomail.WithOpportunisticSMTPAuth(gomail.SMTPAuthPlain, gomail.SMTPAuthLogin),
			gomail.WithUsername(s.user), gomail.WithPassword(s.pass))
	}
	return gomail.NewClient(s.host, opts...)
}

// Open returns the Mailer the --smtp setting names: the outbox in outboxDir for "outbox" (or nothing), SMTP for
// an smtp:// or smtps:// URL. from is --mail-from. Anything else is EINVALID.
func Open(spec, from, outboxDir string) (seald.Mailer, error) {
	switch {
	case spec == "" || spec == "outbox":
		return NewOutbox(outboxDir, from)
	case strings.HasPrefix(spec, "smtp://") || strings.HasPrefix(spec, "smtps://"):
		return NewSMTP(spec, from)
	default:
		return nil, seald.Errorf(seald.EINVALID, "mail: --smtp must be outbox or an smtp:// or smtps:// URL")
	}
}
