package storetest

import (
	"crypto/ed25519"
	"testing"
	"time"

	"seald.dev/seald"
)

var identityTests = []test{
	{"SaveAndRead", testIdentitySaveAndRead},
	{"StaleSaveRefused", testIdentityStaleSave},
	{"CheckOnlyWhileSameDID", testIdentityCheckSameDID},
	{"ToCheck", testIdentitiesToCheck},
}

// newIdentity returns an unsaved pending identity of b with one key.
func newIdentity(b *seald.Business, domain string) *seald.Identity {
	pub, _, _ := ed25519.GenerateKey(nil)
	return &seald.Identity{BusinessID: b.BusinessID, Domain: domain, DID: "did:web:" + domain, State: seald.IdentityPending,
		Keys:      []seald.IdentityKey{{ID: "key-1", Public: pub, Sealed: "sealed-" + randomHex(8), CreatedAt: base}},
		CreatedAt: base, UpdatedAt: base}
}

// An identity reads back as saved, keys in order; a business without one is ENOTFOUND, and a second insert
// ECONFLICT.
func testIdentitySaveAndRead(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, _ := tenant(t, s)
	_, err := s.Identity(ctx, b.BusinessID)
	wantCode(t, "Identity of a business without one", err, seald.ENOTFOUND)
	id := newIdentity(b, "acme.example")
	ok(t, "SaveIdentity", s.SaveIdentity(ctx, id, nil))
	wantCode(t, "SaveIdentity again", s.SaveIdentity(ctx, newIdentity(b, "other.example"), nil), seald.ECONFLICT)
	got, err := s.Identity(ctx, b.BusinessID)
	ok(t, "Identity", err)
	equal(t, "identity", got, id)

	pub, _, _ := ed25519.GenerateKey(nil)
	next := *got
	next.Keys = append([]seald.IdentityKey{{ID: "key-2", Public: pub, Sealed: "s2", CreatedAt: base.Add(time.Hour)}}, got.Keys...)
	next.UpdatedAt = base.Add(time.Hour)
	ok(t, "SaveIdentity with the rotated key", s.SaveIdentity(ctx, &next, &got.UpdatedAt))
	again, err := s.Identity(ctx, b.BusinessID)
	ok(t, "Identity", err)
	equal(t, "rotated identity", again, &next)
}

// A change made on a stale read is refused, and the newer one kept.
func testIdentityStaleSave(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, _ := tenant(t, s)
	id := newIdentity(b, "acme.example")
	ok(t, "SaveIdentity", s.SaveIdentity(ctx, id, nil))
	first := *id
	first.Domain, first.DID, first.UpdatedAt = "one.example", "did:web:one.example", base.Add(time.Second)
	ok(t, "first change", s.SaveIdentity(ctx, &first, &id.UpdatedAt))
	second := *id
	second.Domain, second.DID, second.UpdatedAt = "two.example", "did:web:two.example", base.Add(2*time.Second)
	wantCode(t, "change on a stale read", s.SaveIdentity(ctx, &second, &id.UpdatedAt), seald.ECONFLICT)
	got, err := s.Identity(ctx, b.BusinessID)
	ok(t, "Identity", err)
	equal(t, "domain", got.Domain, "one.example")
}

// A check's outcome is saved only while the identity names the DID checked.
func testIdentityCheckSameDID(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, _ := tenant(t, s)
	id := newIdentity(b, "acme.example")
	ok(t, "SaveIdentity", s.SaveIdentity(ctx, id, nil))
	at := base.Add(time.Minute)
	got, err := s.SaveIdentityCheck(ctx, &seald.IdentityCheck{BusinessID: b.BusinessID, DID: id.DID,
		State: seald.IdentityVerified, VerifiedAt: &at, CheckedAt: at})
	ok(t, "SaveIdentityCheck", err)
	equal(t, "state", got.State, seald.IdentityVerified)
	equal(t, "verified_at", got.VerifiedAt, &at)
	equal(t, "checked_at", got.CheckedAt, &at)
	equal(t, "updated_at", got.UpdatedAt, at)

	lapse := at.Add(time.Hour)
	_, err = s.SaveIdentityCheck(ctx, &seald.IdentityCheck{BusinessID: b.BusinessID, DID: "did:web:other.example",
		State: seald.IdentityLapsed, CheckedAt: lapse, Reason: "gone"})
	wantCode(t, "SaveIdentityCheck of another DID", err, seald.ECONFLICT)
	got, err = s.SaveIdentityCheck(ctx, &seald.IdentityCheck{BusinessID: b.BusinessID, DID: id.DID,
		State: seald.IdentityLapsed, CheckedAt: lapse, Reason: "gone"})
	ok(t, "SaveIdentityCheck lapse", err)
	equal(t, "state", got.State, seald.IdentityLapsed)
	equal(t, "reason", got.Reason, "gone")
	if got.VerifiedAt != nil {
		t.Errorf("verified_at = %v after a lapse, want NULL", got.VerifiedAt)
	}
}

// IdentitiesToCheck finds the identities of a state not checked since a time, the oldest first.
func testIdentitiesToCheck(t *testing.T, s seald.Store) {
	ctx := t.Context()
	var ids []*seald.Identity
	for i := range 3 {
		b, _ := tenant(t, s)
		id := newIdentity(b, "acme.example")
		ok(t, "SaveIdentity", s.SaveIdentity(ctx, id, nil))
		at := base.Add(time.Duration(3-i) * time.Hour) // the last one checked longest ago
		_, err := s.SaveIdentityCheck(ctx, &seald.IdentityCheck{BusinessID: b.BusinessID, DID: id.DID,
			State: seald.IdentityVerified, VerifiedAt: &at, CheckedAt: at})
		ok(t, "SaveIdentityCheck", err)
		ids = append(ids, id)
	}
	b, _ := tenant(t, s)
	ok(t, "SaveIdentity pending", s.SaveIdentity(ctx, newIdentity(b, "pending.example"), nil))

	due, err := s.IdentitiesToCheck(ctx, seald.IdentityVerified, base.Add(3*time.Hour), 10)
	ok(t, "IdentitiesToCheck", err)
	var got []string
	for _, id := range due {
		got = append(got, id.BusinessID)
	}
	equal(t, "due", got, []string{ids[2].BusinessID, ids[1].BusinessID})
	due, err = s.IdentitiesToCheck(ctx, seald.IdentityVerified, base.Add(3*time.Hour), 1)
	ok(t, "IdentitiesToCheck limit 1", err)
	equal(t, "due with limit 1", len(due), 1)
	due, err = s.IdentitiesToCheck(ctx, seald.IdentityPending, base.Add(time.Hour), 10)
	ok(t, "IdentitiesToCheck pending", err)
	equal(t, "pending never checked", len(due), 1)
}
