package httpapi

import (
	"fmt"
	"net/http"
	"net/netip"
	"testing"
)

// TestFailureThrottleNotResetBySpray: failures from a sprayer's many addresses fill the bounded table, yet
// the client that used up its budget stays limited: only clients whose buckets have refilled are dropped,
// and newcomers past the bound share one overflow bucket.
func TestFailureThrottleNotResetBySpray(t *testing.T) {
	ft := newFailureTable(30, 100)
	for range 30 {
		if ok, _ := ft.fail("198.51.100.1"); !ok {
			t.Fatal("a failure within the budget was refused")
		}
	}
	if ok, after := ft.fail("198.51.100.1"); ok || after < 1 {
		t.Fatalf("the 31st failure: ok=%v retry after %d, want refused", ok, after)
	}
	for i := range 10_000 {
		ft.fail(fmt.Sprintf("203.0.%d.%d", i/256, i%256))
	}
	if ok, _ := ft.fail("198.51.100.1"); ok {
		t.Error("spraying 10,000 addresses reset the budget of the client that had used it up")
	}
	if n := ft.lru.Len(); n > 100 {
		t.Errorf("the table holds %d clients, bound 100", n)
	}
}

// TestClientBehindTrustedProxies: the client is the nearest forwarded address that is not a trusted proxy;
// an untrusted peer's X-Forwarded-For is ignored; IPv6 clients are grouped by /64.
func TestClientBehindTrustedProxies(t *testing.T) {
	s := &Server{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	for _, c := range []struct{ remote, xff, want string }{
		{"10.0.0.5:1234", "198.51.100.9", "198.51.100.9"},
		{"10.0.0.5:1234", "203.0.113.1, 198.51.100.9, 10.1.1.1", "198.51.100.9"},
		{"192.0.2.4:1234", "198.51.100.9", "192.0.2.4"},
		{"10.0.0.5:1234", "", "10.0.0.5"},
		{"[2001:db8:1:2:3:4:5:6]:443", "", "2001:db8:1:2::/64"},
		{"10.0.0.5:1234", "not-an-address", "10.0.0.5"},
	} {
		r := &http.Request{RemoteAddr: c.remote, Header: http.Header{}}
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := s.client(r); got != c.want {
			t.Errorf("%s with X-Forwarded-For %q: client %s, want %s", c.remote, c.xff, got, c.want)
		}
	}
}
