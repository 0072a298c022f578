package service_test

import (
	"testing"
	"time"

	"seald.dev/seald"
)

// TestProjectKeys: a project's caller lists, issues, rotates and revokes its own project's API keys only;
// another project's key does not exist for it; the last active key cannot be revoked; nobody and the
// operator are refused.
func TestProjectKeys(t *testing.T) {
	e := newAuthorityEnv(t)
	ctx, svc := t.Context(), e.svc
	tn, err := svc.CreateTenant(ctx, seald.Operator(), seald.TenantRequest{Business: "Keys Ltd", Project: "Keys"})
	if err != nil {
		t.Fatal(err)
	}
	me, err := svc.Authenticate(ctx, tn.SubscriptionKey, tn.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	sub := tn.SubscriptionKey
	e.pub = me
	keys, err := svc.ProjectKeys(ctx, e.pub)
	if err != nil || len(keys) != 1 || keys[0].ID != e.pub.KeyID {
		t.Fatalf("ProjectKeys: %v, %v; want the one key the caller signed in with", keys, err)
	}
	theirs := e.priv.KeyID
	if _, err := svc.RevokeProjectKey(ctx, e.pub, theirs); seald.ErrorCode(err) != seald.ENOTFOUND {
		t.Errorf("revoking another business's key: %v, want not_found", err)
	}
	if _, _, err := svc.RotateProjectKey(ctx, e.pub, theirs, 0); seald.ErrorCode(err) != seald.ENOTFOUND {
		t.Errorf("rotating another business's key: %v, want not_found", err)
	}
	if _, err := svc.RevokeProjectKey(ctx, e.pub, e.pub.KeyID); seald.ErrorCode(err) != seald.EINVALID {
		t.Errorf("revoking the last active key: %v, want invalid", err)
	}
	for name, c := range map[string]*seald.Caller{"nobody": nil, "operator": seald.Operator()} {
		if _, _, err := svc.IssueProjectKey(ctx, c); seald.ErrorCode(err) != seald.EUNAUTHORIZED {
			t.Errorf("IssueProjectKey as %s: %v", name, err)
		}
	}

	secret, k, err := svc.IssueProjectKey(ctx, e.pub)
	if err != nil || k.ProjectID != e.pub.Project.ProjectID {
		t.Fatalf("IssueProjectKey: %v, %v", k, err)
	}
	if c, err := svc.Authenticate(ctx, sub, secret); err != nil || c.KeyID != k.ID {
		t.Fatalf("the issued key does not authenticate: %v", err)
	}
	if _, _, err := svc.RotateProjectKey(ctx, e.pub, k.ID, 31*24*time.Hour); seald.ErrorCode(err) != seald.EINVALID {
		t.Errorf("rotating with a 31-day overlap: %v, want invalid", err)
	}
	next, k2, err := svc.RotateProjectKey(ctx, e.pub, k.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, sub, secret); seald.ErrorCode(err) != seald.EUNAUTHORIZED {
		t.Errorf("the key rotated with no overlap still authenticates: %v", err)
	}
	if _, err := svc.Authenticate(ctx, sub, next); err != nil {
		t.Errorf("the successor does not authenticate: %v", err)
	}
	if _, err := svc.RevokeProjectKey(ctx, e.pub, k2.ID); err != nil {
		t.Errorf("revoking a key beside another active one: %v", err)
	}
	if _, err := svc.Authenticate(ctx, sub, next); seald.ErrorCode(err) != seald.EUNAUTHORIZED {
		t.Errorf("the revoked key still authenticates: %v", err)
	}
	if keys, _ := svc.ProjectKeys(ctx, e.pub); len(keys) != 3 {
		t.Errorf("%d keys listed, want 3 (the first, the issued, its successor)", len(keys))
	}
}
