// Package dialguard decides where seald may open outbound connections on a caller's behalf (webhook
// deliveries; the identity checks of a domain): only to public addresses, unless the operator allowed a
// destination. "Public" is what the IANA special-purpose address registries leave, as code.dny.dev/ssrf
// keeps them (a maintained, generated copy of both registries; IPv6 is further limited to global unicast,
// 2000::/3), rather than a hand-written list that misses ranges.
//
// That library judges an IPv6 address as IPv6. An IPv4 address can hide inside one (IPv4-mapped
// ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16), and
// the library only refuses those wholesale as not global unicast or as special; this package unwraps them
// itself, so that a mapped public address is judged as the IPv4 address it is, an allowed IPv4 range
// covers its mapped form, and a refusal names the address actually wrapped.
//
// A destination is checked twice: when it is given (Guard.CheckHost: a literal address, or what a name
// resolves to then) and at every connection, on the address about to be dialled after DNS
// (Guard.Control, as net.Dialer.Control), so a name that resolves elsewhere later (DNS rebinding) is
// refused all the same.
package dialguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"

	"code.dny.dev/ssrf"
)

// ErrRefused marks a destination refused because of where it is.
var ErrRefused = errors.New("refused destination")

// Allow is the operator's allow-list of destinations that would otherwise be refused: address ranges, and
// host names allowed whatever they resolve to (tests, and an operator's own internal receivers).
type Allow struct {
	Prefixes []netip.Prefix
	Hosts    []string // lower case, without port
}

// ParseAllow reads a comma-separated list of CIDRs, addresses and host names (the --webhook-allow flag).
func ParseAllow(v string) (Allow, error) {
	var a Allow
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			a.Prefixes = append(a.Prefixes, p.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(f); err == nil {
			ip = ip.Unmap()
			a.Prefixes = append(a.Prefixes, netip.PrefixFrom(ip, ip.BitLen()))
			continue
		}
		if strings.ContainsAny(f, "/:@ ") {
			return Allow{}, fmt.Errorf("%q is not an address, CIDR or host name", f)
		}
		a.Hosts = append(a.Hosts, strings.ToLower(strings.TrimSuffix(f, ".")))
	}
	return a, nil
}

// Host reports whether the host name h is allowed whatever it resolves to.
func (a Allow) Host(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	for _, x := range a.Hosts {
		if x == h {
			return true
		}
	}
	return false
}

// Addr reports whether ip (or the IPv4 address it maps) is in an allowed range.
func (a Allow) Addr(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	for _, p := range a.Prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// guardian judges addresses only: ports and networks are the caller's business.
var guardian = ssrf.New(ssrf.WithAnyPort(), ssrf.WithAnyNetwork())

var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")   // RFC 6052 well-known prefix
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48") // RFC 8215 local-use prefix
	sixToFour  = netip.MustParsePrefix("2002::/16")      // RFC 3056
	compatible = netip.MustParsePrefix("::/96")          // RFC 4291 IPv4-compatible (deprecated)
	shared     = netip.MustParsePrefix("100.64.0.0/10")  // RFC 6598
)

// Unwrap returns the IPv4 address embedded in an IPv6 one, and the form it was embedded in: IPv4-mapped,
// IPv4-compatible (but not :: or ::1), NAT64 (64:ff9b::/96, and 64:ff9b:1::/48 with the RFC 6052 /48
// layout) or 6to4 (2002::/16). ok is false for any other address.
func Unwrap(ip netip.Addr) (v4 netip.Addr, form string, ok bool) {
	ip = ip.WithZone("")
	if !ip.Is6() {
		return netip.Addr{}, "", false
	}
	b := ip.As16()
	switch {
	case ip.Is4In6():
		return ip.Unmap(), "IPv4-mapped", true
	case compatible.Contains(ip) && ip != netip.IPv6Unspecified() && ip != netip.IPv6Loopback():
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), "IPv4-compatible", true
	case nat64.Contains(ip):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), "NAT64", true
	case nat64Local.Contains(ip):
		return netip.AddrFrom4([4]byte{b[6], b[7], b[9], b[10]}), "NAT64", true // bits 64-71 are reserved
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), "6to4", true
	}
	return netip.Addr{}, "", false
}

// Why reports why ip is not a public destination, or "" when it is.
func Why(ip netip.Addr) string {
	ip = ip.WithZone("")
	if v4, form, ok := Unwrap(ip); ok {
		if form == "IPv4-mapped" {
			return Why(v4) // a mapped address is dialled as the IPv4 address it is
		}
		if why := Why(v4); why != "" {
			return fmt.Sprintf("%s wrapped in %s", why, form)
		}
	}
	if err := guardian.SafeAddr(ip); err == nil {
		return ""
	}
	switch {
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsPrivate():
		return "a private address"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "a link-local address (cloud metadata services live there)"
	case ip.IsUnspecified():
		return "an unspecified address"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "a multicast address"
	case shared.Contains(ip):
		return "a shared (carrier-grade NAT) address"
	case ip.Is6() && !ssrf.IPv6GlobalUnicast.Contains(ip):
		return "an IPv6 address outside global unicast"
	}
	return "a special-purpose address (IANA registry)"
}

// Guard checks destinations against Why and an allow-list. Its zero value refuses every address that is
// not public.
type Guard struct {
	Allow Allow
}

// CheckAddr refuses ip unless it is public or allowed; host names it in the error.
func (g Guard) CheckAddr(host string, ip netip.Addr) error {
	if g.Allow.Addr(ip) {
		return nil
	}
	if why := Why(ip); why != "" {
		name := ip.String()
		if host != "" && host != name {
			name += " (" + host + ")"
		}
		return fmt.Errorf("%w: %s is %s", ErrRefused, name, why)
	}
	return nil
}

// Resolver looks names up; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// CheckHost refuses a destination host (a literal address or a name) when it is not allowed: a literal
// that is not public, or a name any of whose current addresses is not. A name that does not resolve now
// passes: it is checked again at every dial. r nil uses net.DefaultResolver.
func (g Guard) CheckHost(ctx context.Context, r Resolver, host string) error {
	host = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(host, "]"), "["), ".")
	if g.Allow.Host(host) {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return g.CheckAddr("", ip)
	}
	if r == nil {
		r = net.DefaultResolver
	}
	ips, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil
	}
	for _, ip := range ips {
		if err := g.CheckAddr(host, ip); err != nil {
			return err
		}
	}
	return nil
}

// Control returns a net.Dialer.Control that refuses, right before connecting, an address that is not
// allowed; host is the name being dialled (allowed names pass whatever they resolve to).
func (g Guard) Control(host string) func(network, address string, c syscall.RawConn) error {
	trusted := g.Allow.Host(host)
	return func(_, address string, _ syscall.RawConn) error {
		if trusted {
			return nil
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: cannot read the address %q", ErrRefused, address)
		}
		return g.CheckAddr(host, ap.Addr())
	}
}
