package mail_test

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"seald.dev/seald/mail/mailpittest"
)

// Credentials the in-process server accepts.
const (
	testUser = "mailer"
	testPass = "p@ss:wörd/1"
)

// delivery is one message as the in-process server received it.
type delivery struct {
	From     string
	To       []string // envelope recipients
	Data     []byte
	AuthUser string
	TLS      bool
}

// smtpServer is an in-process SMTP server (github.com/emersion/go-smtp, a real implementation of the
// protocol) that records what it receives and can be told to fail. It offers STARTTLS on a generated
// certificate and AUTH PLAIN, the latter only over TLS, as a careful production server does.
type smtpServer struct {
	addr string
	cert *mailpittest.Cert

	mu         sync.Mutex
	deliveries []delivery
	sessions   int
	mailErr    error         // answer to MAIL FROM
	rcptErr    error         // answer to RCPT TO
	dataErr    error         // answer at the end of DATA
	inData     chan struct{} // when set, signalled once DATA starts
	holdData   chan struct{} // when set, DATA waits until it is closed
}

type serverOpts struct {
	noTLS       bool // offer no STARTTLS
	implicitTLS bool // TLS from the first byte
}

func startSMTPServer(t *testing.T, o serverOpts) *smtpServer {
	t.Helper()
	s := &smtpServer{cert: mailpittest.NewCert(t)}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		s.mu.Lock()
		s.sessions++
		s.mu.Unlock()
		_, isTLS := c.TLSConnectionState()
		return &session{s: s, tls: isTLS, conn: c}, nil
	}))
	srv.Domain = "mx.test"
	srv.ReadTimeout = time.Minute
	srv.WriteTimeout = time.Minute
	if !o.noTLS {
		srv.TLSConfig = s.cert.ServerConfig()
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if o.implicitTLS {
		l = tls.NewListener(l, s.cert.ServerConfig())
	}
	s.addr = l.Addr().String()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(l)
	}()
	t.Cleanup(func() {
		s.mu.Lock()
		if s.holdData != nil {
			select {
			case <-s.holdData:
			default:
				close(s.holdData)
			}
		}
		s.mu.Unlock()
		_ = srv.Close()
		// Close the listener too: on a busy machine Close can run before Serve has registered it, and Serve
		// would then accept for ever.
		_ = l.Close()
		<-done
	})
	return s
}

func (s *smtpServer) received() []delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]delivery(nil), s.deliveries...)
}

func (s *smtpServer) sessionCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions
}

func (s *smtpServer) fail(mail, rcpt, data error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mailErr, s.rcptErr, s.dataErr = mail, rcpt, data
}

// session is one SMTP session of smtpServer.
type session struct {
	s    *smtpServer
	conn *smtp.Conn
	tls  bool
	user string
	cur  delivery
}

var _ smtp.AuthSession = (*session)(nil)

func (ss *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (ss *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != testUser || password != testPass {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "bad credentials"}
		}
		ss.user = username
		return nil
	}), nil
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	ss.s.mu.Lock()
	err := ss.s.mailErr
	ss.s.mu.Unlock()
	if err != nil {
		return err
	}
	_, isTLS := ss.conn.TLSConnectionState()
	ss.cur = delivery{From: from, AuthUser: ss.user, TLS: isTLS}
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.s.mu.Lock()
	err := ss.s.rcptErr
	ss.s.mu.Unlock()
	if err != nil {
		return err
	}
	ss.cur.To = append(ss.cur.To, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	ss.s.mu.Lock()
	in, hold, dataErr := ss.s.inData, ss.s.holdData, ss.s.dataErr
	ss.s.mu.Unlock()
	if in != nil {
		in <- struct{}{}
	}
	if hold != nil {
		<-hold
		return errors.New("held")
	}
	if dataErr != nil {
		return dataErr
	}
	ss.cur.Data = b
	ss.s.mu.Lock()
	ss.s.deliveries = append(ss.s.deliveries, ss.cur)
	ss.s.mu.Unlock()
	return nil
}

func (ss *session) Reset()        { ss.cur = delivery{} }
func (ss *session) Logout() error { return nil }
