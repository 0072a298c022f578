package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/internal/ttlcache"
)

// pairKey names a presented key pair by the SHA-256 digests of the two secrets: the raw secrets are never
// kept in memory beyond the request that carried them.
type pairKey struct{ sub, api [sha256.Size]byte }

// tenantCache keeps, for Service.CacheTTL, the key pairs that authenticated and the businesses and projects
// read for answers, so that a verification reads the store once (the record) instead of seven times (both
// keys, the caller's project and business, the record, the owner's project and business again).
//
// Entries are few (one per key pair in use, one per business and project), each map holds at most
// ttlcache.DefaultLimit of them, invalidation is "drop everything" (a key revoked or rotated here), and expiry
// is checked against the Service's own clock (Service.Now), which the tests set.
//
// Records are never cached: their status (ACTIVE, SUSPENDED, REVOKED) and pipeline state must be exact in
// every answer.
type tenantCache struct {
	callers    ttlcache.Map[pairKey, *seald.Caller] // until the earlier of the TTL's end and either key's expiry
	projects   ttlcache.Map[string, *seald.Project]
	businesses ttlcache.Map[string, *seald.Business]
}

// invalidate drops every entry at once. Keys change rarely (issue, rotate, revoke), so dropping all is
// simpler than indexing entries by key id and costs a few store reads afterwards. A fill that began before
// it is not stored (ttlcache.Map.Generation).
func (c *tenantCache) invalidate() {
	c.callers.Invalidate()
	c.projects.Invalidate()
	c.businesses.Invalidate()
}

// InvalidateCache drops everything this Service has cached, so that the next request reads keys, businesses
// and projects from the store. The Service calls it itself after revoking or rotating a key; call it after
// changing keys, businesses or projects behind the Service's back in this process.
func (s *Service) InvalidateCache() { s.cache.invalidate() }

// project returns a project, from the cache when it is fresh.
func (s *Service) project(ctx context.Context, id string, now time.Time) (*seald.Project, error) {
	if s.CacheTTL <= 0 {
		return s.Store.Project(ctx, id)
	}
	if p, ok := s.cache.projects.Get(id, now); ok {
		return p, nil
	}
	gen := s.cache.projects.Generation()
	p, err := s.Store.Project(ctx, id)
	if err != nil {
		return nil, err
	}
	s.cache.projects.Put(gen, p.ProjectID, p, now.Add(s.CacheTTL), now)
	return p, nil
}

// business returns a business, from the cache when it is fresh.
func (s *Service) business(ctx context.Context, id string, now time.Time) (*seald.Business, error) {
	if s.CacheTTL <= 0 {
		return s.Store.Business(ctx, id)
	}
	if b, ok := s.cache.businesses.Get(id, now); ok {
		return b, nil
	}
	gen := s.cache.businesses.Generation()
	b, err := s.Store.Business(ctx, id)
	if err != nil {
		return nil, err
	}
	s.cache.businesses.Put(gen, b.BusinessID, b, now.Add(s.CacheTTL), now)
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
func cacheUntil(now time.Time, ttl time.Duration, keys ...*seald.Key) time.Time {
	until := now.Add(ttl)
	for _, k := range keys {
		if k.ExpiresAt != nil && k.ExpiresAt.Before(until) {
			until = *k.ExpiresAt
		}
	}
	return until
}
