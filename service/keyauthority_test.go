package service_test

import (
	"testing"
	"time"

	"seald.dev/seald"
)

// TestKeyAuthorityOnlyShrinks: once a caller's key is rotated, the caller (a holder of the leaked key) can
// neither rotate it again, nor issue, rotate or revoke any key; a rotation, the operator's included, never
// moves an expiry later.
func TestKeyAuthorityOnlyShrinks(t *testing.T) {
	e := newAuthorityEnv(t)
	ctx, svc := t.Context(), e.svc
	tn, err := svc.CreateTenant(ctx, seald.Operator(), seald.TenantRequest{Business: "Leak Ltd", Project: "Leak"})
	if err != nil {
		t.Fatal(err)
	}
	leaked, err := svc.Authenticate(ctx, tn.SubscriptionKey, tn.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	_, other, err := svc.IssueProjectKey(ctx, leaked)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.RotateProjectKey(ctx, leaked, leaked.KeyID, time.Hour); err != nil {
		t.Fatalf("the owner's rotation: %v", err)
	}
	expiry := func() time.Time {
		k, err := svc.Store.Key(ctx, leaked.KeyID)
		if err != nil || k.ExpiresAt == nil {
			t.Fatalf("the rotated key: %v %v", k, err)
		}
		return *k.ExpiresAt
	}
	first := expiry()
	for name, try := range map[string]func() error{
		"rotate itself":  func() error { _, _, err := svc.RotateProjectKey(ctx, leaked, leaked.KeyID, 7*24*time.Hour); return err },
		"issue":          func() error { _, _, err := svc.IssueProjectKey(ctx, leaked); return err },
		"rotate another": func() error { _, _, err := svc.RotateProjectKey(ctx, leaked, other.ID, 0); return err },
		"revoke another": func() error { _, err := svc.RevokeProjectKey(ctx, leaked, other.ID); return err },
	} {
		if err := try(); seald.ErrorCode(err) != seald.EUNAUTHORIZED {
			t.Errorf("%s with a key in its overlap: %v, want unauthorized", name, err)
		}
	}
	if got := expiry(); !got.Equal(first) {
		t.Errorf("expiry moved from %s to %s", first, got)
	}
	if _, _, err := svc.RotateKey(ctx, seald.Operator(), leaked.KeyID, 7*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := expiry(); got.After(first) {
		t.Errorf("the operator's rotation extended the expiry from %s to %s", first, got)
	}
	if _, _, err := svc.RotateKey(ctx, seald.Operator(), leaked.KeyID, time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := expiry(); !got.Before(first) {
		t.Errorf("a shorter overlap did not shorten the expiry: %s", got)
	}
}
