package wiring

import (
	"net"
	"strings"
	"testing"

	"seald.dev/seald/webhook"
)

// The DID fetcher's dial guard refuses loopback unless --webhook-allow admits it, checking the address
// actually dialled.
func TestGuardedDial(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, err = guardedDial(webhook.Allow{}, 0)(t.Context(), "tcp", ln.Addr().String())
	if err == nil || !strings.Contains(err.Error(), "--webhook-allow") {
		t.Fatalf("dial of loopback without allow = %v, want refused", err)
	}
	for _, v := range []string{"127.0.0.1", "127.0.0.0/8"} {
		allow, err := webhook.ParseAllow(v)
		if err != nil {
			t.Fatal(err)
		}
		c, err := guardedDial(allow, 0)(t.Context(), "tcp", ln.Addr().String())
		if err != nil {
			t.Fatalf("dial of loopback with --webhook-allow %s = %v", v, err)
		}
		c.Close()
	}
}
