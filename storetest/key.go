package storetest

import (
	"testing"
	"time"

	"seald.dev/seald"
)

var keyTests = []test{
	{"RoundTrip", testKeyRoundTrip},
	{"Update", testKeyUpdate},
	{"NotFound", testKeyNotFound},
	{"Duplicate", testKeyDuplicate},
	{"List", testKeyList},
}

func testKeyRoundTrip(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, p := tenant(t, s)
	sub := newKey(b, nil, base)
	sub.Sealed = "sealed"
	api := newKey(b, p, base.Add(time.Millisecond))
	expires, revoked := base.Add(24*time.Hour), base.Add(time.Hour)
	api.ExpiresAt, api.RevokedAt = &expires, &revoked
	for _, k := range []*seald.Key{sub, api} {
		ok(t, "CreateKey", s.CreateKey(ctx, k))
		got, err := s.Key(ctx, k.ID)
		ok(t, "Key", err)
		equal(t, "Key "+string(k.Kind), got, k)
		got, err = s.KeyByDigest(ctx, k.Digest)
		ok(t, "KeyByDigest", err)
		equal(t, "KeyByDigest "+string(k.Kind), got, k)
	}
	// A subscription key has no project: "" both ways, and nil times stay nil.
	got, err := s.Key(ctx, sub.ID)
	ok(t, "Key", err)
	if got.ProjectID != "" || got.ExpiresAt != nil || got.RevokedAt != nil {
		t.Errorf("subscription key = %+v, want no project and nil times", got)
	}
}

// UpdateKey saves the expiry, the revocation and the sealed secret, and only those.
func testKeyUpdate(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, _ := tenant(t, s)
	k := newKey(b, nil, base)
	ok(t, "CreateKey", s.CreateKey(ctx, k))
	want := *k

	expires, revoked := base.Add(time.Hour), base.Add(2*time.Hour)
	k.ExpiresAt, k.RevokedAt, k.Sealed = &expires, &revoked, "resealed"
	k.Prefix, k.Digest = "changed", randomHex(32) // not saved by UpdateKey
	ok(t, "UpdateKey", s.UpdateKey(ctx, k))
	want.ExpiresAt, want.RevokedAt, want.Sealed = &expires, &revoked, "resealed"
	got, err := s.Key(ctx, k.ID)
	ok(t, "Key", err)
	equal(t, "updated Key", got, &want)

	k.ExpiresAt, k.RevokedAt, k.Sealed = nil, nil, ""
	ok(t, "UpdateKey", s.UpdateKey(ctx, k))
	want.ExpiresAt, want.RevokedAt, want.Sealed = nil, nil, ""
	got, err = s.Key(ctx, k.ID)
	ok(t, "Key", err)
	equal(t, "Key with times cleared", got, &want)

	ghost := newKey(b, nil, base)
	wantCode(t, "UpdateKey of an unknown key", s.UpdateKey(ctx, ghost), seald.ENOTFOUND)
}

func testKeyNotFound(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, _ := tenant(t, s)
	ok(t, "CreateKey", s.CreateKey(ctx, newKey(b, nil, base)))
	_, err := s.Key(ctx, "key_nothing")
	wantCode(t, "Key", err, seald.ENOTFOUND)
	_, err = s.KeyByDigest(ctx, randomHex(32))
	wantCode(t, "KeyByDigest", err, seald.ENOTFOUND)
	ghost, _ := newBusiness("ghost")
	wantCode(t, "CreateKey of an unknown business", s.CreateKey(ctx, newKey(ghost, nil, base)), seald.ENOTFOUND)
}

func testKeyDuplicate(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, p := tenant(t, s)
	k := newKey(b, p, base)
	ok(t, "CreateKey", s.CreateKey(ctx, k))
	same := newKey(b, p, base)
	same.Digest = k.Digest
	wantCode(t, "CreateKey with a taken digest", s.CreateKey(ctx, same), seald.ECONFLICT)
	sameID := newKey(b, p, base)
	sameID.ID = k.ID
	wantCode(t, "CreateKey with a taken id", s.CreateKey(ctx, sameID), seald.ECONFLICT)
}

// Keys lists a business's keys oldest first, or every key; a business with none gets an empty list.
func testKeyList(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b1, p1 := tenant(t, s)
	b2, _ := tenant(t, s)
	k3 := newKey(b1, p1, base.Add(3*time.Second))
	k1 := newKey(b1, nil, base.Add(time.Second))
	k2 := newKey(b2, nil, base.Add(2*time.Second))
	for _, k := range []*seald.Key{k3, k1, k2} {
		ok(t, "CreateKey", s.CreateKey(ctx, k))
	}
	got, err := s.Keys(ctx, b1.BusinessID)
	ok(t, "Keys", err)
	equal(t, "Keys of the first business", got, []*seald.Key{k1, k3})
	got, err = s.Keys(ctx, "")
	ok(t, "Keys", err)
	equal(t, "all Keys", got, []*seald.Key{k1, k2, k3})
	got, err = s.Keys(ctx, "biz_nobody")
	ok(t, "Keys of an unknown business", err)
	if len(got) != 0 {
		t.Errorf("Keys of an unknown business = %d keys", len(got))
	}
}
