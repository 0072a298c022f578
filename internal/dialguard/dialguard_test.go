package dialguard

import (
	"context"
	"errors"
	"net/netip"
	"testing"
)

// TestWhy: every address the review found dialled (issue 43) is refused, with the IPv4 address wrapped in
// an IPv6 one named; public addresses, IPv4 and IPv6 and mapped, pass.
func TestWhy(t *testing.T) {
	for _, c := range []struct {
		ip     string
		public bool
	}{
		// Missed by the hand-written list before.
		{"198.18.0.1", false}, {"198.19.255.254", false}, // benchmarking 198.18.0.0/15
		{"240.0.0.1", false}, {"255.255.255.254", false}, // reserved 240.0.0.0/4
		{"0.1.2.3", false},                // 0.0.0.0/8
		{"192.0.0.8", false},              // 192.0.0.0/24
		{"fec0::1", false},                // site-local fec0::/10
		{"64:ff9b::7f00:1", false},        // NAT64 of 127.0.0.1
		{"64:ff9b::a9fe:a9fe", false},     // NAT64 of 169.254.169.254
		{"64:ff9b:1:7f00:0:100::", false}, // local-use NAT64 of 127.0.0.1
		{"2002:7f00:1::", false},          // 6to4 of 127.0.0.1
		{"2002:a9fe:a9fe::1", false},      // 6to4 of 169.254.169.254
		{"::7f00:1", false},               // IPv4-compatible 127.0.0.1
		{"::a9fe:a9fe", false},            // IPv4-compatible 169.254.169.254
		// Refused before too.
		{"127.0.0.1", false}, {"10.1.2.3", false}, {"172.16.0.1", false}, {"192.168.1.1", false},
		{"169.254.169.254", false}, {"100.64.0.1", false}, {"0.0.0.0", false}, {"224.0.0.1", false},
		{"::1", false}, {"::", false}, {"fe80::1", false}, {"fc00::1", false}, {"ff02::1", false},
		{"::ffff:127.0.0.1", false}, {"::ffff:10.0.0.1", false}, {"2001:db8::1", false},
		// Public.
		{"8.8.8.8", true}, {"1.1.1.1", true}, {"::ffff:8.8.8.8", true}, {"2606:4700:4700::1111", true},
		{"2a00:1450:4001:80b::200e", true},
	} {
		why := Why(netip.MustParseAddr(c.ip))
		if (why == "") != c.public {
			t.Errorf("Why(%s) = %q, want public %v", c.ip, why, c.public)
		}
	}
	if why := Why(netip.MustParseAddr("64:ff9b::7f00:1")); why != "a loopback address wrapped in NAT64" {
		t.Errorf("NAT64 loopback: %q", why)
	}
}

// TestGuard: the allow-list admits what the operator listed (an IPv4 range covers its mapped form, a name
// whatever it resolves to), checks hold at creation (literals and resolved names) and at the dial.
func TestGuard(t *testing.T) {
	allow, err := ParseAllow("127.0.0.1, internal.example")
	if err != nil {
		t.Fatal(err)
	}
	g := Guard{Allow: allow}
	ctx := context.Background()
	// A name stands in for DNS answering an internal address when the webhook is created.
	names := resolver{"rebind.example": {netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("::7f00:1")}}
	for host, ok := range map[string]bool{"127.0.0.1": true, "[::ffff:127.0.0.1]": true, "internal.example": true,
		"127.0.0.2": false, "[::7f00:1]": false, "rebind.example": false, "198.18.0.1": false, "8.8.8.8": true} {
		if err := g.CheckHost(ctx, names, host); (err == nil) != ok {
			t.Errorf("CheckHost(%s) = %v, want allowed %v", host, err, ok)
		} else if err != nil && !errors.Is(err, ErrRefused) {
			t.Errorf("CheckHost(%s): %v is not ErrRefused", host, err)
		}
	}
	ctl := Guard{}.Control("rebind.example")
	if err := ctl("tcp6", "[64:ff9b::7f00:1]:443", nil); !errors.Is(err, ErrRefused) {
		t.Errorf("dial of NAT64 loopback: %v", err)
	}
	if err := ctl("tcp4", "8.8.8.8:443", nil); err != nil {
		t.Errorf("dial of a public address: %v", err)
	}
	if err := g.Control("internal.example")("tcp4", "10.0.0.1:80", nil); err != nil {
		t.Errorf("an allowed name refused: %v", err)
	}
	if _, err := ParseAllow("a b"); err == nil {
		t.Error("a malformed allow entry was accepted")
	}
}

// resolver answers names from a map, as a DNS server would; unknown names do not resolve.
type resolver map[string][]netip.Addr

func (r resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if ips, ok := r[host]; ok {
		return ips, nil
	}
	return nil, errors.New("no such host")
}
