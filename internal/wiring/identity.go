package wiring

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/didweb"
	"seald.dev/seald/webhook"
)

// IdentityEvery is how often the identity sweep looks for verified domains whose last check is older than
// seald.IdentityRecheck; each is then fetched again, so every domain is re-checked about daily.
const IdentityEvery = time.Hour

// didFetcher is the fetcher of the businesses' DID documents, dialling through the outbound guard of
// webhook deliveries: the same internal addresses are refused, and the same --webhook-allow admits them.
// The guard is passed in as a dial function so that another guard can replace it here alone.
func didFetcher(allow webhook.Allow) *didweb.Fetcher {
	return &didweb.Fetcher{DialContext: guardedDial(allow, didweb.DefaultTimeout)}
}

// guardedDial dials only addresses that are public or that allow admits, checked on the address actually
// connected to (after name resolution), so a name that resolves to an internal address is refused too.
func guardedDial(allow webhook.Allow, timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	hostAllowed := func(h string) bool {
		h = strings.ToLower(strings.TrimSuffix(h, "."))
		for _, x := range allow.Hosts {
			if x == h {
				return true
			}
		}
		return false
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		trusted := hostAllowed(host)
		d := &net.Dialer{Timeout: timeout, Control: func(_, address string, _ syscall.RawConn) error {
			if trusted {
				return nil
			}
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("cannot read the address %q", address)
			}
			ip := ap.Addr().Unmap()
			if why := webhook.Internal(ip); why != "" {
				for _, p := range allow.Prefixes {
					if p.Contains(ip) {
						return nil
					}
				}
				return fmt.Errorf("%s (%s) is %s, which this seald does not connect to (its operator may allow it with --webhook-allow)", ip, host, why)
			}
			return nil
		}}
		return d.DialContext(ctx, network, addr)
	}
}

// identitySweep re-checks, in rounds of 100, the verified domains due for their daily check.
func identitySweep(svc *seald.Service) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		for {
			n, err := svc.RecheckIdentities(ctx, 100)
			if err != nil || n < 100 {
				return err
			}
		}
	}
}
