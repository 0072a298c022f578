package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"sync"
	"time"
)

// Sessions live in this process's memory, never in the store: a session holds the project's two keys (so
// that every request is authenticated again, and a key revoked or expired ends its sessions at once), and
// secrets that only authenticate a browser for a few hours have no business in a database or its backups. A
// restart signs everyone out, and several seald processes behind one address need sticky sessions
// (docs/console.md).

// session is one signed-in browser.
type session struct {
	id              string
	csrf            string
	subscriptionKey string
	apiKey          string
	created         time.Time
	lastSeen        time.Time
	// secret is a secret to show once on the next page that asks for it (a new webhook's signing secret), so
	// that it never goes into a URL and a reload does not show it again.
	secret string
}

// sessions is the table of live sessions, bounded so that sign-ins cannot exhaust memory.
type sessions struct {
	mu   sync.Mutex
	byID map[string]*session
	idle time.Duration
	max  time.Duration
	now  func() time.Time
}

// maxSessions bounds the table: a few hundred bytes each.
const maxSessions = 100_000

func newSessions(idle, absolute time.Duration, now func() time.Time) *sessions {
	return &sessions{byID: map[string]*session{}, idle: idle, max: absolute, now: now}
}

// randomToken is 256 random bits, URL-safe.
func randomToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on the systems Go supports
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// create starts a session for the key pair, dropping expired ones (and, when the table is full of live ones,
// the oldest).
func (t *sessions) create(subscriptionKey, apiKey string) *session {
	now := t.now()
	s := &session{id: randomToken(), csrf: randomToken(), subscriptionKey: subscriptionKey, apiKey: apiKey,
		created: now, lastSeen: now}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.byID) >= maxSessions/2 {
		var oldest *session
		for id, o := range t.byID {
			if t.expired(o, now) {
				delete(t.byID, id)
			} else if oldest == nil || o.created.Before(oldest.created) {
				oldest = o
			}
		}
		if len(t.byID) >= maxSessions && oldest != nil {
			delete(t.byID, oldest.id)
		}
	}
	t.byID[s.id] = s
	return s
}

func (t *sessions) expired(s *session, now time.Time) bool {
	return now.Sub(s.lastSeen) >= t.idle || now.Sub(s.created) >= t.max
}

// get returns the live session of id and marks it seen, or nil; an expired one is removed.
func (t *sessions) get(id string) *session {
	if id == "" {
		return nil
	}
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.byID[id]
	if !ok {
		return nil
	}
	if t.expired(s, now) {
		delete(t.byID, id)
		return nil
	}
	s.lastSeen = now
	return s
}

// end removes a session (sign-out, or its key stopped working).
func (t *sessions) end(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.byID, id)
}

// validCSRF compares a submitted token with the session's in constant time.
func (s *session) validCSRF(token string) bool {
	return token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(s.csrf)) == 1
}

// keepSecret holds a secret for the session's next page that shows one.
func (t *sessions) keepSecret(s *session, secret string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s.secret = secret
}

// takeSecret returns the secret kept for the session and forgets it.
func (t *sessions) takeSecret(s *session) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := s.secret
	s.secret = ""
	return v
}
