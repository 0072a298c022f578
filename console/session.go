package console

import (
	"container/list"
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
//
// The table is bounded in all and per business, and every step is constant time: sessions are kept in one
// list by last use (so the idle ones are at its front, dropped as new ones come) and, per business, in a
// list by creation. A business at its bound loses its own oldest session to a new sign-in; when the whole
// table is full of live sessions, a business with sessions loses its oldest, and one without is refused
// for a while: no business's sign-ins can push out another's sessions.

// session is one signed-in browser.
type session struct {
	id              string
	csrf            string
	business        string // the business's public id: its sessions are bounded together
	subscriptionKey string
	apiKey          string
	created         time.Time
	lastSeen        time.Time
	// secret is a secret to show once on the next page that asks for it (a new webhook's signing secret), so
	// that it never goes into a URL and a reload does not show it again.
	secret string

	byUse, byBusiness *list.Element // its places in sessions.byUse and its business's list
}

// sessions is the table of live sessions.
type sessions struct {
	mu         sync.Mutex
	byID       map[string]*session
	byUse      *list.List            // of *session, least recently used first
	byBusiness map[string]*list.List // of *session, oldest first
	idle       time.Duration
	max        time.Duration
	now        func() time.Time
	limit      int // sessions in all
	perBiz     int // sessions of one business
}

// Bounds of the table: a few hundred bytes a session. A business with more browsers signed in at once than
// maxBusinessSessions is not one the console is meant for.
const (
	maxSessions         = 100_000
	maxBusinessSessions = 1_000
)

func newSessions(idle, absolute time.Duration, now func() time.Time) *sessions {
	return &sessions{byID: map[string]*session{}, byUse: list.New(), byBusiness: map[string]*list.List{},
		idle: idle, max: absolute, now: now, limit: maxSessions, perBiz: maxBusinessSessions}
}

// randomToken is 256 random bits, URL-safe.
func randomToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on the systems Go supports
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// create starts a session of the business for the key pair, making room as the top of this file says; nil
// when the table is full of live sessions and the business has none to give up.
func (t *sessions) create(business, subscriptionKey, apiKey string) *session {
	now := t.now()
	s := &session{id: randomToken(), csrf: randomToken(), business: business, subscriptionKey: subscriptionKey,
		apiKey: apiKey, created: now, lastSeen: now}
	t.mu.Lock()
	defer t.mu.Unlock()
	// The least recently used sessions that sat idle too long go first; each is removed once, so this is
	// constant time over the sign-ins.
	for e := t.byUse.Front(); e != nil && now.Sub(e.Value.(*session).lastSeen) >= t.idle; e = t.byUse.Front() {
		t.remove(e.Value.(*session))
	}
	own := t.byBusiness[business]
	if own != nil && own.Len() >= t.perBiz || len(t.byID) >= t.limit {
		if own == nil || own.Len() == 0 {
			return nil
		}
		t.remove(own.Front().Value.(*session))
	}
	if own = t.byBusiness[business]; own == nil {
		own = list.New()
		t.byBusiness[business] = own
	}
	s.byUse, s.byBusiness = t.byUse.PushBack(s), own.PushBack(s)
	t.byID[s.id] = s
	return s
}

// remove drops s from the table; t.mu is held.
func (t *sessions) remove(s *session) {
	if _, ok := t.byID[s.id]; !ok {
		return
	}
	delete(t.byID, s.id)
	t.byUse.Remove(s.byUse)
	if own := t.byBusiness[s.business]; own != nil {
		own.Remove(s.byBusiness)
		if own.Len() == 0 {
			delete(t.byBusiness, s.business)
		}
	}
}

func (t *sessions) expired(s *session, now time.Time) bool {
	return now.Sub(s.lastSeen) >= t.idle || now.Sub(s.created) >= t.max
}

// get returns the live session of id and marks it used, or nil; an expired one is removed.
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
		t.remove(s)
		return nil
	}
	s.lastSeen = now
	t.byUse.MoveToBack(s.byUse)
	return s
}

// end removes a session (sign-out, or its key stopped working).
func (t *sessions) end(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.byID[id]; ok {
		t.remove(s)
	}
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
