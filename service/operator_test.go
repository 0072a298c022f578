package service_test

import (
	"context"
	"testing"
	"time"

	"seald.dev/seald"
)

// operatorOps calls every operator action of the Service as c.
func (e *authorityEnv) operatorOps(c *seald.Caller) map[string]func(ctx context.Context) error {
	s := e.svc
	key := e.pub.KeyID
	return map[string]func(ctx context.Context) error{
		"CreateTenant": func(ctx context.Context) error {
			_, err := s.CreateTenant(ctx, c, seald.TenantRequest{Business: "New", Project: "One"})
			return err
		},
		"EnsureDefaultTenant": func(ctx context.Context) error { _, err := s.EnsureDefaultTenant(ctx, c); return err },
		"IssueKey": func(ctx context.Context) error {
			_, _, err := s.IssueKey(ctx, c, e.pub.Business.BusinessID, e.pub.Project.ProjectID)
			return err
		},
		"RotateKey": func(ctx context.Context) error { _, _, err := s.RotateKey(ctx, c, key, time.Hour); return err },
		"RevokeKey": func(ctx context.Context) error { _, err := s.RevokeKey(ctx, c, key); return err },
		"SetProjectRate": func(ctx context.Context) error {
			return s.SetProjectRate(ctx, c, e.pub.Project.ProjectID, 5, 10)
		},
	}
}

// TestOperatorActionsNeedTheOperator: the operator's actions on tenants and keys take an explicit caller and
// refuse nobody (nil), a project's caller and a forged literal with EUNAUTHORIZED, changing nothing; the
// operator's caller (Operator) may.
func TestOperatorActionsNeedTheOperator(t *testing.T) {
	e := newAuthorityEnv(t)
	for who, c := range map[string]*seald.Caller{"nil": nil, "project": e.pub, "literal": {KeyID: "key_forged"}} {
		for name, op := range e.operatorOps(c) {
			t.Run(who+"/"+name, func(t *testing.T) {
				if err := op(t.Context()); seald.ErrorCode(err) != seald.EUNAUTHORIZED {
					t.Fatalf("%s caller: %v (code %q), want %s", who, err, seald.ErrorCode(err), seald.EUNAUTHORIZED)
				}
				if _, err := e.svc.Authenticate(t.Context(), "", ""); err == nil {
					t.Fatal("an empty pair authenticated")
				}
				if k, err := e.store.Key(t.Context(), e.pub.KeyID); err != nil || k.RevokedAt != nil || k.ExpiresAt != nil {
					t.Fatalf("the project's key changed: %+v, %v", k, err)
				}
			})
		}
	}
	for name, op := range e.operatorOps(seald.Operator()) {
		if name == "RevokeKey" || name == "RotateKey" {
			continue // they end the key the others use; checked below, last
		}
		if err := op(t.Context()); err != nil {
			t.Errorf("operator %s: %v", name, err)
		}
	}
	if _, _, err := e.svc.RotateKey(t.Context(), seald.Operator(), e.pub.KeyID, time.Hour); err != nil {
		t.Errorf("operator RotateKey: %v", err)
	}
	if _, err := e.svc.RevokeKey(t.Context(), seald.Operator(), e.pub.KeyID); err != nil {
		t.Errorf("operator RevokeKey: %v", err)
	}
}
