package service_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/jcs"
	"seald.dev/seald/service"
)

// countingStore is a real SQLite store that counts the reads the cache is meant to save.
type countingStore struct {
	seald.Store
	keys, projects, businesses, records atomic.Int64
	// afterKey, when set, runs after each key read, to change keys in the middle of an authentication.
	afterKey func(*seald.Key)
}

func (s *countingStore) KeyByDigest(ctx context.Context, d string) (*seald.Key, error) {
	s.keys.Add(1)
	k, err := s.Store.KeyByDigest(ctx, d)
	if s.afterKey != nil && err == nil {
		s.afterKey(k)
	}
	return k, err
}

func (s *countingStore) Project(ctx context.Context, id string) (*seald.Project, error) {
	s.projects.Add(1)
	return s.Store.Project(ctx, id)
}

func (s *countingStore) Business(ctx context.Context, id string) (*seald.Business, error) {
	s.businesses.Add(1)
	return s.Store.Business(ctx, id)
}

func (s *countingStore) Record(ctx context.Context, ref string) (*seald.Record, error) {
	s.records.Add(1)
	return s.Store.Record(ctx, ref)
}

func (s *countingStore) RecordBrief(ctx context.Context, ref string) (*seald.Record, error) {
	s.records.Add(1)
	return s.Store.RecordBrief(ctx, ref)
}

// reads is the number of store reads of keys, projects and businesses so far.
func (s *countingStore) reads() int64 { return s.keys.Load() + s.projects.Load() + s.businesses.Load() }

// clock is the Service's injected time: tests move it, nothing sleeps.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

type cacheEnv struct {
	store  *countingStore
	clock  *clock
	svc    *service.Service // the instance under test, caching for ttl
	other  *service.Service // another process on the same database (the operator's CLI), no cache
	tenant *seald.Tenant
}

const ttl = 2 * time.Second

func newCacheEnv(t *testing.T) *cacheEnv {
	t.Helper()
	st, secrets := storeAndKeys(t)
	e := &cacheEnv{store: &countingStore{Store: st}, clock: &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}
	chains := devPolygon()
	e.svc = &service.Service{Store: e.store, Secrets: secrets, Canonicalize: jcs.Canonicalize, Chains: chains, Now: e.clock.Now, CacheTTL: ttl}
	e.other = &service.Service{Store: st, Secrets: secrets, Canonicalize: jcs.Canonicalize, Chains: chains, Now: e.clock.Now}
	var err error
	if e.tenant, err = e.other.CreateTenant(t.Context(), seald.Operator(), seald.TenantRequest{Business: "Acme", Project: "Docs"}); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *cacheEnv) auth(t *testing.T, sub, api string) (*seald.Caller, error) {
	t.Helper()
	return e.svc.Authenticate(t.Context(), sub, api)
}

// apiKeyID returns the id of the tenant's API key.
func (e *cacheEnv) apiKeyID(t *testing.T) string {
	t.Helper()
	keys, err := e.other.Store.Keys(t.Context(), e.tenant.Business.BusinessID)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.Kind == seald.KeyProject && k.ProjectID == e.tenant.Project.ProjectID {
			return k.ID
		}
	}
	t.Fatal("no API key")
	return ""
}

func TestAuthCache(t *testing.T) {
	t.Run("a pair that authenticated is not read again within the TTL", func(t *testing.T) {
		e := newCacheEnv(t)
		c1, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey)
		if err != nil {
			t.Fatal(err)
		}
		first := e.store.reads()
		if first != 4 {
			t.Fatalf("first authentication read %d times, want 4 (two keys, project, business)", first)
		}
		e.clock.add(ttl - time.Millisecond)
		c2, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey)
		if err != nil {
			t.Fatal(err)
		}
		if n := e.store.reads(); n != first {
			t.Errorf("a cached pair read the store %d more times", n-first)
		}
		if c1 == c2 || c2.KeyID != c1.KeyID || c2.Project.ProjectID != e.tenant.Project.ProjectID ||
			c2.Business.BusinessID != e.tenant.Business.BusinessID {
			t.Errorf("cached caller %+v, first %+v (want an equal caller, not the same one)", c2, c1)
		}
	})
	t.Run("an entry expires at the TTL", func(t *testing.T) {
		e := newCacheEnv(t)
		if _, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey); err != nil {
			t.Fatal(err)
		}
		first := e.store.reads()
		e.clock.add(ttl)
		if _, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey); err != nil {
			t.Fatal(err)
		}
		if n := e.store.reads(); n != 2*first {
			t.Errorf("after the TTL: %d reads in all, want %d (everything read again)", n, 2*first)
		}
	})
	t.Run("zero TTL turns the cache off", func(t *testing.T) {
		e := newCacheEnv(t)
		e.svc.CacheTTL = 0
		for range 3 {
			if _, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey); err != nil {
				t.Fatal(err)
			}
		}
		if n := e.store.reads(); n != 12 {
			t.Errorf("%d reads for 3 authentications without a cache, want 12", n)
		}
	})
	t.Run("failures are not cached and a wrong pair never matches a cached one", func(t *testing.T) {
		e := newCacheEnv(t)
		if _, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey); err != nil {
			t.Fatal(err)
		}
		for _, bad := range [][2]string{
			{e.tenant.SubscriptionKey, e.tenant.APIKey + "x"},
			{e.tenant.SubscriptionKey + "x", e.tenant.APIKey},
			{e.tenant.APIKey, e.tenant.SubscriptionKey}, // the two swapped
		} {
			for range 2 {
				before := e.store.keys.Load()
				if _, err := e.auth(t, bad[0], bad[1]); seald.ErrorCode(err) != seald.EUNAUTHORIZED {
					t.Errorf("%q/%q: %v, want EUNAUTHORIZED", bad[0][:6], bad[1][:6], err)
				}
				if e.store.keys.Load() == before {
					t.Errorf("a failed pair was answered from the cache")
				}
			}
		}
	})
	t.Run("a key revoked in another process stops working within the TTL", func(t *testing.T) {
		e := newCacheEnv(t)
		if _, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey); err != nil {
			t.Fatal(err)
		}
		if _, err := e.other.RevokeKey(t.Context(), seald.Operator(), e.apiKeyID(t)); err != nil {
			t.Fatal(err)
		}
		// The documented bound: this process may still accept it until the TTL ends...
		e.clock.add(ttl - time.Millisecond)
		if _, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey); err != nil {
			t.Fatalf("within the TTL the cached pair is still trusted: %v", err)
		}
		// ...and no longer.
		e.clock.add(time.Millisecond)
		if _, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey); seald.ErrorCode(err) != seald.EUNAUTHORIZED {
			t.Errorf("revoked key at the TTL: %v, want EUNAUTHORIZED", err)
		}
	})
	t.Run("a key revoked in this process stops working at once", func(t *testing.T) {
		e := newCacheEnv(t)
		if _, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.RevokeKey(t.Context(), seald.Operator(), e.apiKeyID(t)); err != nil {
			t.Fatal(err)
		}
		if _, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey); seald.ErrorCode(err) != seald.EUNAUTHORIZED {
			t.Errorf("revoked key, same process, same instant: %v, want EUNAUTHORIZED", err)
		}
	})
	t.Run("a revocation in this process during an authentication is not undone by its cache fill", func(t *testing.T) {
		e := newCacheEnv(t)
		id := e.apiKeyID(t)
		e.store.afterKey = func(k *seald.Key) {
			if k.ID == id {
				e.store.afterKey = nil
				if _, err := e.svc.RevokeKey(t.Context(), seald.Operator(), id); err != nil {
					t.Error(err)
				}
			}
		}
		// The authentication read the key before it was revoked: it may succeed (the two were concurrent)...
		if _, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey); err != nil {
			t.Fatal(err)
		}
		// ...but must not leave the pair cached past the revocation.
		if _, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey); seald.ErrorCode(err) != seald.EUNAUTHORIZED {
			t.Errorf("after a revocation that raced the first authentication: %v, want EUNAUTHORIZED", err)
		}
	})
	t.Run("a key rotated in this process with no overlap stops at once, its successor works", func(t *testing.T) {
		e := newCacheEnv(t)
		if _, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey); err != nil {
			t.Fatal(err)
		}
		next, _, err := e.svc.RotateKey(t.Context(), seald.Operator(), e.apiKeyID(t), 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey); seald.ErrorCode(err) != seald.EUNAUTHORIZED {
			t.Errorf("rotated key: %v, want EUNAUTHORIZED", err)
		}
		if _, err := e.auth(t, e.tenant.SubscriptionKey, next); err != nil {
			t.Errorf("successor: %v", err)
		}
	})
	t.Run("a rotated key's overlap ends to the millisecond even when cached", func(t *testing.T) {
		e := newCacheEnv(t)
		overlap := ttl / 4
		if _, _, err := e.other.RotateKey(t.Context(), seald.Operator(), e.apiKeyID(t), overlap); err != nil {
			t.Fatal(err)
		}
		// Cached now, with the expiry the store holds: the entry must not outlive it.
		if _, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey); err != nil {
			t.Fatal(err)
		}
		e.clock.add(overlap - time.Millisecond)
		if _, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey); err != nil {
			t.Errorf("during the overlap: %v", err)
		}
		e.clock.add(time.Millisecond)
		if _, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey); seald.ErrorCode(err) != seald.EUNAUTHORIZED {
			t.Errorf("at the overlap's end, well within the TTL: %v, want EUNAUTHORIZED", err)
		}
	})
}

func TestVerifyReads(t *testing.T) {
	e := newCacheEnv(t)
	c, err := e.auth(t, e.tenant.SubscriptionKey, e.tenant.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.svc.Seal(t.Context(), c, &seald.SealRequest{Data: []byte(`{"a":1}`), Network: seald.NetworkPolygon, To: "a@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("the caller's own record reads only the record", func(t *testing.T) {
		before, records := e.store.reads(), e.store.records.Load()
		v, err := e.svc.Verify(t.Context(), c, seald.Lookup{Reference: r.Reference})
		if err != nil {
			t.Fatal(err)
		}
		if n := e.store.reads() - before; n != 0 {
			t.Errorf("%d reads of keys, projects or businesses, want 0", n)
		}
		if n := e.store.records.Load() - records; n != 1 {
			t.Errorf("%d record reads, want 1: records are never cached", n)
		}
		if v.Project.ProjectID != r.ProjectID || v.Business.BusinessID != r.BusinessID || v.Business.Name != "Acme" {
			t.Errorf("owner %s/%s, want %s/%s", v.Business.BusinessID, v.Project.ProjectID, r.BusinessID, r.ProjectID)
		}
	})
	t.Run("a record's status change shows at once", func(t *testing.T) {
		if _, err := e.other.SetStatus(t.Context(), seald.Operator(), r.Reference, "SUSPENDED", "test"); err != nil {
			t.Fatal(err)
		}
		v, err := e.svc.Verify(t.Context(), c, seald.Lookup{Reference: r.Reference})
		if err != nil || v.Record.Status != seald.StatusSuspended {
			t.Errorf("after suspending elsewhere: %v %+v", err, v)
		}
	})
	t.Run("another business's public record: its owner is read once per TTL", func(t *testing.T) {
		tn, err := e.other.CreateTenant(t.Context(), seald.Operator(), seald.TenantRequest{Business: "Other", Project: "Public"})
		if err != nil {
			t.Fatal(err)
		}
		oc, err := e.other.Authenticate(t.Context(), tn.SubscriptionKey, tn.APIKey)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := e.other.Seal(t.Context(), oc, &seald.SealRequest{Data: []byte(`{"b":2}`), Network: seald.NetworkPolygon, To: "b@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []int64{2, 0} {
			before := e.store.reads()
			v, err := e.svc.Verify(t.Context(), c, seald.Lookup{Reference: theirs.Reference})
			if err != nil {
				t.Fatal(err)
			}
			if v.Business.Name != "Other" || v.Project.ProjectID != tn.Project.ProjectID {
				t.Errorf("owner %+v, want Other's", v.Business)
			}
			if n := e.store.reads() - before; n != want {
				t.Errorf("verification %d: %d reads of project and business, want %d", i+1, n, want)
			}
		}
	})
}
