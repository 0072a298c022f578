package seald

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"
)

// DefaultCacheTTL is the cache lifetime serve uses unless told otherwise (Service.CacheTTL).
const DefaultCacheTTL = 2 * time.Second

// cacheLimit bounds each map of the cache. Only pairs that authenticated are kept, so real use stays far
// below it; past it, expired entries are dropped, and if that is not enough, everything (a refill costs one
// store read per entry).
const cacheLimit = 10_000

// pairKey names a presented key pair by the SHA-256 digests of the two secrets: the raw secrets are never
// kept in memory beyond the request that carried them.
type pairKey struct{ sub, api [sha256.Size]byte }

type callerEntry struct {
	caller *Caller
	until  time.Time // the earlier of the TTL's end and either key's expiry
}

type projectEntry struct {
	project *Project
	until   time.Time
}

type businessEntry struct {
	business *Business
	until    time.Time
}

// tenantCache keeps, for Service.CacheTTL, the key pairs that authenticated and the businesses and projects
// read for answers, so that a verification reads the store once (the record) instead of seven times (both
// keys, the caller's project and business, the record, the owner's project and business again).
//
// A map under a read-write mutex, written by hand: entries are few (one per key pair in use, one per
// business and project), invalidation is "drop everything" (a key revoked or rotated here), and expiry is
// checked against the Service's own clock (Service.Now), which the tests set; the expiring-LRU libraries
// (hashicorp/golang-lru/v2/expirable, jellydator/ttlcache) read time.Now themselves and run a janitor
// goroutine, which would make the revocation bound untestable without sleeping.
//
// Records are never cached: their status (ACTIVE, SUSPENDED, REVOKED) and pipeline state must be exact in
// every answer.
type tenantCache struct {
	mu         sync.RWMutex
	gen        uint64 // bumped by every invalidation; a fill that began before one is not stored
	callers    map[pairKey]callerEntry
	projects   map[string]projectEntry
	businesses map[string]businessEntry
}

func (c *tenantCache) generation() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.gen
}

func (c *tenantCache) caller(k pairKey, now time.Time) *Caller {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if e, ok := c.callers[k]; ok && now.Before(e.until) {
		return e.caller
	}
	return nil
}

func (c *tenantCache) project(id string, now time.Time) *Project {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if e, ok := c.projects[id]; ok && now.Before(e.until) {
		return e.project
	}
	return nil
}

func (c *tenantCache) business(id string, now time.Time) *Business {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if e, ok := c.businesses[id]; ok && now.Before(e.until) {
		return e.business
	}
	return nil
}

// room makes space in m for one more entry: expired entries go first, then, if still full, all of them.
func room[K comparable, V any](m map[K]V, now time.Time, until func(V) time.Time) {
	if len(m) < cacheLimit {
		return
	}
	for k, v := range m {
		if !now.Before(until(v)) {
			delete(m, k)
		}
	}
	if len(m) >= cacheLimit {
		clear(m)
	}
}

// putCaller stores an authenticated pair unless an invalidation happened since gen was read: the store
// reads it came from may predate a revocation made in this process.
func (c *tenantCache) putCaller(gen uint64, k pairKey, e callerEntry, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.callers == nil {
		c.callers = map[pairKey]callerEntry{}
	}
	room(c.callers, now, func(e callerEntry) time.Time { return e.until })
	c.callers[k] = e
}

func (c *tenantCache) putProject(gen uint64, p *Project, until, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.projects == nil {
		c.projects = map[string]projectEntry{}
	}
	room(c.projects, now, func(e projectEntry) time.Time { return e.until })
	c.projects[p.ProjectID] = projectEntry{project: p, until: until}
}

func (c *tenantCache) putBusiness(gen uint64, b *Business, until, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.businesses == nil {
		c.businesses = map[string]businessEntry{}
	}
	room(c.businesses, now, func(e businessEntry) time.Time { return e.until })
	c.businesses[b.BusinessID] = businessEntry{business: b, until: until}
}

// invalidate drops every entry at once. Keys change rarely (issue, rotate, revoke), so dropping all is
// simpler than indexing entries by key id and costs a few store reads afterwards.
func (c *tenantCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.callers)
	clear(c.projects)
	clear(c.businesses)
}

// InvalidateCache drops everything this Service has cached, so that the next request reads keys, businesses
// and projects from the store. The Service calls it itself after revoking or rotating a key; call it after
// changing keys, businesses or projects behind the Service's back in this process.
func (s *Service) InvalidateCache() { s.cache.invalidate() }

// project returns a project, from the cache when it is fresh.
func (s *Service) project(ctx context.Context, id string, now time.Time) (*Project, error) {
	if s.CacheTTL <= 0 {
		return s.Store.Project(ctx, id)
	}
	if p := s.cache.project(id, now); p != nil {
		return p, nil
	}
	gen := s.cache.generation()
	p, err := s.Store.Project(ctx, id)
	if err != nil {
		return nil, err
	}
	s.cache.putProject(gen, p, now.Add(s.CacheTTL), now)
	return p, nil
}

// business returns a business, from the cache when it is fresh.
func (s *Service) business(ctx context.Context, id string, now time.Time) (*Business, error) {
	if s.CacheTTL <= 0 {
		return s.Store.Business(ctx, id)
	}
	if b := s.cache.business(id, now); b != nil {
		return b, nil
	}
	gen := s.cache.generation()
	b, err := s.Store.Business(ctx, id)
	if err != nil {
		return nil, err
	}
	s.cache.putBusiness(gen, b, now.Add(s.CacheTTL), now)
	return b, nil
}

// pairOf is the cache key of a presented pair.
func pairOf(subscriptionKey, apiKey string) pairKey {
	return pairKey{sub: sha256.Sum256([]byte(subscriptionKey)), api: sha256.Sum256([]byte(apiKey))}
}

// hexDigest is KeyDigest of a secret whose SHA-256 is already computed.
func hexDigest(sum [sha256.Size]byte) string { return hex.EncodeToString(sum[:]) }

// cacheUntil is when a cached pair stops being trusted: at the TTL's end, or earlier when either key expires
// (a rotated key keeps working only until its overlap ends, to the millisecond, cached or not).
func cacheUntil(now time.Time, ttl time.Duration, keys ...*Key) time.Time {
	until := now.Add(ttl)
	for _, k := range keys {
		if k.ExpiresAt != nil && k.ExpiresAt.Before(until) {
			until = *k.ExpiresAt
		}
	}
	return until
}
