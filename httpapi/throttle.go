package httpapi

import (
	"container/list"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"seald.dev/seald"
)

// Failed authentications are throttled per client, and the throttle can only ever slow the client that
// fails. Keys are checked first, so a valid pair is always served, whoever failed before on the same
// address; a client past its budget of failures is answered 429 with Retry-After instead of 401. (Keys are
// 256 random bits: the throttle is not what keeps them from being guessed. It tells a misconfigured or
// hostile client to back off, and keeps it apart from the others in logs and metrics.)
//
// A client is the connecting address, or, when that is a proxy listed in TrustedProxies, the nearest
// address in X-Forwarded-For that is not one; IPv6 clients are grouped by /64, the block one host usually
// gets. The table of clients is bounded: when it is full, the least recently seen client is dropped only if
// its bucket has refilled (it then holds nothing a fresh bucket would not), and otherwise the newcomer
// shares one overflow bucket. Spraying from many addresses therefore resets no one's count: it only makes
// the sprayer's new addresses share one budget.

// maxClients bounds the failure table: about 200 bytes a client, 20 MB at most.
const maxClients = 100_000

type failureTable struct {
	mu       sync.Mutex
	rate     rate.Limit
	burst    int
	max      int
	byClient map[string]*list.Element // of *failures
	lru      *list.List               // most recently seen first
	overflow *rate.Limiter
}

type failures struct {
	client string
	lim    *rate.Limiter
}

func newFailureTable(perMinute float64, max int) *failureTable {
	r := rate.Limit(perMinute / 60)
	return &failureTable{rate: r, burst: int(perMinute), max: max, byClient: map[string]*list.Element{},
		lru: list.New(), overflow: rate.NewLimiter(r, int(perMinute))}
}

// limiter returns the bucket of a client, making room as described above.
func (t *failureTable) limiter(client string, now time.Time) *rate.Limiter {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.byClient[client]; ok {
		t.lru.MoveToFront(e)
		return e.Value.(*failures).lim
	}
	if t.lru.Len() >= t.max {
		oldest := t.lru.Back().Value.(*failures)
		if oldest.lim.TokensAt(now) < float64(t.burst) {
			return t.overflow
		}
		t.lru.Remove(t.lru.Back())
		delete(t.byClient, oldest.client)
	}
	f := &failures{client: client, lim: rate.NewLimiter(t.rate, t.burst)}
	t.byClient[client] = t.lru.PushFront(f)
	return f.lim
}

// fail counts a failure of client and reports whether it was within its budget; when not, retryAfter is
// the whole number of seconds until the next failure would be (at least 1).
func (t *failureTable) fail(client string) (ok bool, retryAfter int) {
	if t == nil {
		return true, 0
	}
	now := time.Now()
	lim := t.limiter(client, now)
	if lim.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - lim.TokensAt(now)
	return false, max(1, int(math.Ceil(missing/float64(t.rate))))
}

// allowed tells, without counting anything, whether client is within its budget, and if not, how many
// seconds until it is.
func (t *failureTable) allowed(client string) (ok bool, retryAfter int) {
	if t == nil {
		return true, 0
	}
	now := time.Now()
	tokens := t.limiter(client, now).TokensAt(now)
	if tokens >= 1 {
		return true, 0
	}
	return false, max(1, int(math.Ceil((1-tokens)/float64(t.rate))))
}

// client names the client of a request for the failure table (see the top of this file).
func (s *Server) client(r *http.Request) string {
	addr := remoteAddr(r)
	if s.trusted(addr) {
		hops := r.Header.Values("X-Forwarded-For")
		for i := len(hops) - 1; i >= 0; i-- {
			parts := strings.Split(hops[i], ",")
			for j := len(parts) - 1; j >= 0; j-- {
				hop, err := netip.ParseAddr(strings.TrimSpace(parts[j]))
				if err != nil {
					return clientKey(addr) // a hop we cannot read: the proxy itself is the client we know
				}
				if addr = hop.Unmap(); !s.trusted(addr) {
					return clientKey(addr)
				}
			}
		}
	}
	return clientKey(addr)
}

func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// remoteAddr is the connecting address (the zero Addr when it cannot be read).
func remoteAddr(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, _ := netip.ParseAddr(host)
	return a.Unmap()
}

// clientKey is an IPv4 address, or the /64 of an IPv6 one.
func clientKey(a netip.Addr) string {
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// AuthenticationFailed counts a failed authentication of the request's client outside the API (the console's
// sign-in), in the same budget as the API's own, so that a client cannot spend one budget on each door. It
// reports whether the client was within its budget, and when not, how many seconds it should wait. It may
// be called once Handler has been called.
func (s *Server) AuthenticationFailed(r *http.Request) (ok bool, retryAfter int) {
	return s.failures.fail(s.client(r))
}

// Spend takes n requests' worth of c's budget, the one every API request of its key spends (the project's
// rate per API key, or the server's): the console spends it for each of its actions, and n for a seal of n
// records, so that the console is no way around the API's limits. Past the budget, err is ERATELIMIT and
// retryAfter the whole seconds to wait (the API's 429 and Retry-After). It may be called once Handler has
// been called; a caller without a project (the operator) is not limited.
func (s *Server) Spend(c *seald.Caller, n int) (retryAfter int, err error) {
	if c == nil || c.Project == nil || n <= 0 {
		return 0, nil
	}
	ok, after := s.limits.allow(c.KeyID, c.Project.RateLimit, c.Project.RateBurst, n)
	if ok {
		return 0, nil
	}
	if burst := s.limits.burstOf(c.Project.RateLimit, c.Project.RateBurst); n > burst {
		return after, seald.Errorf(seald.ERATELIMIT, "%d requests at once are more than this API key's burst of %d: send at most %d at once", n, burst, burst)
	}
	return after, seald.Errorf(seald.ERATELIMIT, "rate limit of this API key exceeded; retry after %d s", after)
}
