package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"seald.dev/seald"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	callerKey
)

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// callerOf returns the caller authenticate put into the context, or nil when the route was mounted without
// authenticate. nil grants nothing: every Service method that changes state or shows an owner's record
// refuses it (seald.ErrNoCaller, 401), and the verifications read as an anonymous caller (PUBLIC records).
func callerOf(ctx context.Context) *seald.Caller {
	c, _ := ctx.Value(callerKey).(*seald.Caller)
	return c
}

// saneRequestID accepts a client's X-Request-Id only when it is short and made of safe characters, so it can
// go into logs and headers as it is.
func saneRequestID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// statusRecorder remembers the status a handler wrote, for the log line.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe sets the request id, recovers panics into a generic 500 in the operation's envelope, and writes
// one log line per request. Query strings are logged (they hold references and hashes, no secrets); headers
// are not, since two of them are keys.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID(id) {
			id = newRequestID()
		}
		w.Header()["X-Request-Id"] = []string{id} // canonical already: Set would check it on every request
		r = r.WithContext(context.WithValue(r.Context(), requestIDKey, id))
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.logger().Error("panic", "request_id", id, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if rec.status == 0 {
					s.writeError(rec, r, fmt.Errorf("panic: %v", v))
				}
			}
			route := r.Pattern
			if s.Metrics != nil {
				s.Metrics(route, rec.status, time.Since(start))
			}
			s.logger().Info("request", "request_id", id, "method", r.Method, "path", r.URL.Path,
				"query", r.URL.RawQuery, "status", rec.status, "duration_ms", time.Since(start).Milliseconds(),
				"remote", clientIP(r))
		}()
		next.ServeHTTP(rec, r)
	})
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// authenticate checks the two key headers and puts the caller into the request's context. A header given
// twice is refused: a proxy in front may have checked the other copy. Failures are throttled per client
// (throttle.go): a client past its budget is answered 429 instead of 401, and a valid pair is always served.
func (s *Server) authenticate(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, h := range []string{"Ocp-Apim-Subscription-Key", "Api-Key"} {
			if len(r.Header.Values(h)) > 1 {
				s.writeError(w, r, seald.Errorf(seald.EINVALID, "the %s header is given more than once; send it once", h))
				return
			}
		}
		c, err := s.Service.Authenticate(r.Context(), r.Header.Get("Ocp-Apim-Subscription-Key"), r.Header.Get("Api-Key"))
		if err != nil {
			if seald.ErrorCode(err) == seald.EUNAUTHORIZED {
				if ok, after := s.failures.fail(s.client(r)); !ok {
					w.Header().Set("Retry-After", strconv.Itoa(after))
					err = seald.Errorf(seald.ERATELIMIT, "too many failed authentications from this client; try again later")
				}
			}
			s.writeError(w, r, err)
			return
		}
		if ok, after := s.limits.allow(c.KeyID, c.Project.RateLimit, c.Project.RateBurst, 1); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(after))
			s.writeError(w, r, seald.Errorf(seald.ERATELIMIT, "rate limit of this API key exceeded; retry after %d s", after))
			return
		}
		next(w, r.WithContext(context.WithValue(r.Context(), callerKey, c)))
	}
}

// limiters hands out one token bucket per key (or address).
type limiters struct {
	mu    sync.Mutex
	rate  rate.Limit
	burst int
	m     map[string]*rate.Limiter
}

func newLimiters(perSecond float64, burst int) *limiters {
	return &limiters{rate: rate.Limit(perSecond), burst: burst, m: map[string]*rate.Limiter{}}
}

func (l *limiters) get(key string) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, ok := l.m[key]
	if !ok {
		if len(l.m) > 100_000 {
			clear(l.m) // bound memory against many distinct keys; a reset bucket is only generous once
		}
		lim = rate.NewLimiter(l.rate, l.burst)
		l.m[key] = lim
	}
	return lim
}

// rateOf is the rate of a key of a project whose own rate is perSecond (0: the server's).
func (l *limiters) rateOf(perSecond float64) rate.Limit {
	if perSecond > 0 {
		return rate.Limit(perSecond)
	}
	return l.rate
}

// burstOf is the burst of a key of a project whose own rate and burst are given (0: the server's).
func (l *limiters) burstOf(perSecond float64, burst int) int {
	if perSecond <= 0 {
		return l.burst
	}
	if burst <= 0 {
		return max(1, int(math.Ceil(perSecond)))
	}
	return burst
}

// allow takes n tokens for key at the project's own rate when it has one (perSecond > 0; its burst, or a
// second's worth when 0), else at the server's; a non-positive rate means no limit. A bucket follows a
// project's rate when it changes. When the tokens are not there, none is taken, and retryAfter is the
// whole number of seconds until they will be (at least 1); n above the burst can never be served, and is
// told so by the caller (Spend).
func (l *limiters) allow(key string, perSecond float64, burst, n int) (ok bool, retryAfter int) {
	if l == nil {
		return true, 0
	}
	r, b := l.rateOf(perSecond), l.burstOf(perSecond, burst)
	if r <= 0 {
		return true, 0
	}
	lim := l.get(key)
	if lim.Limit() != r || lim.Burst() != b {
		// The project's rate changed (or the bucket is new): it starts afresh at the new rate, full.
		lim = rate.NewLimiter(r, b)
		l.mu.Lock()
		l.m[key] = lim
		l.mu.Unlock()
	}
	now := time.Now()
	if lim.AllowN(now, n) {
		return true, 0
	}
	missing := float64(min(n, b)) - lim.TokensAt(now)
	return false, max(1, int(math.Ceil(missing/float64(r))))
}
