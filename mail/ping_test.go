package mail_test

import (
	"context"
	"net"
	"net/url"
	"testing"

	"seald.dev/seald/mail"
)

func TestSMTPPing(t *testing.T) {
	srv := startSMTPServer(t, serverOpts{})
	m := newSMTP(t, srv, "smtp", "", url.UserPassword(testUser, testPass))
	if err := m.Ping(context.Background()); err != nil {
		t.Fatalf("ping of a working server: %v", err)
	}
	if n := len(srv.received()); n != 0 {
		t.Errorf("ping delivered %d messages", n)
	}
	if srv.sessionCount() == 0 {
		t.Error("ping opened no session")
	}

	bad := newSMTP(t, srv, "smtp", "", url.UserPassword(testUser, "wrong"))
	if err := bad.Ping(context.Background()); err == nil {
		t.Error("ping with wrong credentials succeeded")
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	down, err := mail.NewSMTP("smtp://"+addr+"?tls=none", testFrom)
	if err != nil {
		t.Fatal(err)
	}
	if err := down.Ping(context.Background()); err == nil {
		t.Error("ping of a closed port succeeded")
	}
}
