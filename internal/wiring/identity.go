package wiring

import (
	"context"
	"fmt"
	"net"
	"syscall"
	"time"

	"seald.dev/seald/didweb"
	"seald.dev/seald/internal/dialguard"
	"seald.dev/seald/service"
)

// IdentityEvery is how often the identity sweep looks for verified domains whose last check is older than
// seald.IdentityRecheck; each is then fetched again, so every domain is re-checked about daily.
const IdentityEvery = time.Hour

// didFetcher is the fetcher of the businesses' DID documents, dialling through the outbound guard of
// webhook deliveries (package dialguard): the same special-purpose addresses are refused, and the same
// --webhook-allow admits them.
func didFetcher(allow dialguard.Allow) *didweb.Fetcher {
	return &didweb.Fetcher{DialContext: guardedDial(allow, didweb.DefaultTimeout)}
}

// guardedDial dials only addresses that are public or that allow admits, checked on the address actually
// connected to (after name resolution), so a name that resolves to an internal address is refused too.
func guardedDial(allow dialguard.Allow, timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	g := dialguard.Guard{Allow: allow}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		control := g.Control(host)
		d := &net.Dialer{Timeout: timeout, Control: func(network, address string, c syscall.RawConn) error {
			if err := control(network, address, c); err != nil {
				return fmt.Errorf("%w, which this seald does not connect to (its operator may allow it with --webhook-allow)", err)
			}
			return nil
		}}
		return d.DialContext(ctx, network, addr)
	}
}

// identitySweep re-checks, in rounds of 100, the verified domains due for their daily check.
func identitySweep(svc *service.Service) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		for {
			n, err := svc.RecheckIdentities(ctx, 100)
			if err != nil || n < 100 {
				return err
			}
		}
	}
}
