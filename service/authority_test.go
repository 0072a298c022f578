package service_test

import (
	"context"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/jcs"
	"seald.dev/seald/service"
	"seald.dev/seald/sqlite"
)

// authorityEnv is a Service on a real SQLite store with two businesses (one PUBLIC project, one PRIVATE),
// a record of each, and a webhook of the first project.
type authorityEnv struct {
	svc              *service.Service
	store            *sqlite.Store
	pub, priv        *seald.Caller
	pubRec, privRec  *seald.Record
	hook             *seald.Webhook
	pubBusinessName  string
	privBusinessName string
}

func newAuthorityEnv(t *testing.T) *authorityEnv {
	t.Helper()
	st, secrets := storeAndKeys(t)
	svc := &service.Service{Store: st, Secrets: secrets, Canonicalize: jcs.Canonicalize, Chains: devPolygon(), Webhooks: st,
		PublicURL: "https://verify.example.test"}
	e := &authorityEnv{svc: svc, store: st, pubBusinessName: "Acme", privBusinessName: "Hidden"}
	e.pub = signUp(t, svc, seald.TenantRequest{Business: e.pubBusinessName, Project: "Docs"})
	e.priv = signUp(t, svc, seald.TenantRequest{Business: e.privBusinessName, Project: "Secret", Privacy: seald.PrivacyPrivate})
	pw := "pw"
	var err error
	if e.pubRec, err = svc.Seal(t.Context(), e.pub, &seald.SealRequest{Data: []byte(`{"a":1}`), To: "a@example.com", Password: &pw}); err != nil {
		t.Fatal(err)
	}
	if e.privRec, err = svc.Seal(t.Context(), e.priv, &seald.SealRequest{Data: []byte(`{"b":2}`), To: "b@example.com"}); err != nil {
		t.Fatal(err)
	}
	if e.hook, _, err = svc.CreateWebhook(t.Context(), e.pub, seald.WebhookRequest{URL: "https://hooks.example.test/x"}); err != nil {
		t.Fatal(err)
	}
	return e
}

// unchanged fails the test unless the store holds what newAuthorityEnv left: both records as sealed, no
// audit trail, no other record of their data, the businesses' names and the one webhook.
func (e *authorityEnv) unchanged(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	for _, want := range []*seald.Record{e.pubRec, e.privRec} {
		got, err := e.store.Record(ctx, want.Reference)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != seald.StatusActive || got.Erased() || !got.UpdatedAt.Equal(want.UpdatedAt) || got.DataKey == "" {
			t.Errorf("record %s changed: status %s, erased %v, updated %v", got.Reference, got.Status, got.Erased(), got.UpdatedAt)
		}
		if trail, err := e.store.AuditTrail(ctx, want.Reference); err != nil || len(trail) != 0 {
			t.Errorf("record %s has an audit trail: %d entries (%v)", want.Reference, len(trail), err)
		}
		if same, err := e.store.RecordsByHash(ctx, want.Hash); err != nil || len(same) != 1 {
			t.Errorf("%d records hold the hash of %s (%v), want 1", len(same), want.Reference, err)
		}
	}
	for id, name := range map[string]string{e.pub.Business.BusinessID: e.pubBusinessName, e.priv.Business.BusinessID: e.privBusinessName} {
		if b, err := e.store.Business(ctx, id); err != nil || b.Name != name {
			t.Errorf("business %s: %+v, %v; want the name %q", id, b, err, name)
		}
	}
	if hooks, err := e.store.ProjectWebhooks(ctx, e.pub.Project.ProjectID); err != nil || len(hooks) != 1 {
		t.Errorf("the project has %d webhooks (%v), want 1", len(hooks), err)
	}
}

// callerOps calls every Service method that takes a caller and changes state or shows an owner's data, as c.
func (e *authorityEnv) callerOps(c *seald.Caller) map[string]func(ctx context.Context) error {
	s, ref := e.svc, e.pubRec.Reference
	name := "Renamed"
	return map[string]func(ctx context.Context) error{
		"Seal": func(ctx context.Context) error {
			_, err := s.Seal(ctx, c, &seald.SealRequest{Data: []byte(`{"a":1}`), To: "a@example.com"})
			return err
		},
		"Generate": func(ctx context.Context) error { _, err := s.Generate(ctx, c, []byte(`{"a":1}`)); return err },
		"Status":   func(ctx context.Context) error { _, err := s.Status(ctx, c, ref); return err },
		"SetStatus": func(ctx context.Context) error {
			_, err := s.SetStatus(ctx, c, ref, "REVOKED", "x")
			return err
		},
		"ChangeStatus": func(ctx context.Context) error {
			_, _, err := s.ChangeStatus(ctx, c, ref, "SUSPENDED", "x")
			return err
		},
		"History":  func(ctx context.Context) error { _, _, err := s.History(ctx, c, ref); return err },
		"Download": func(ctx context.Context) error { _, err := s.Download(ctx, c, ref, "pw"); return err },
		"Erase":    func(ctx context.Context) error { _, _, err := s.Erase(ctx, c, ref, "asked"); return err },
		"UpdateTenant": func(ctx context.Context) error {
			_, _, err := s.UpdateTenant(ctx, c, seald.TenantUpdate{BusinessID: e.pub.Business.BusinessID, Name: &name})
			return err
		},
		"CreateWebhook": func(ctx context.Context) error {
			_, _, err := s.CreateWebhook(ctx, c, seald.WebhookRequest{URL: "https://hooks.example.test/y"})
			return err
		},
		"ListWebhooks":  func(ctx context.Context) error { _, err := s.ListWebhooks(ctx, c); return err },
		"DeleteWebhook": func(ctx context.Context) error { _, err := s.DeleteWebhook(ctx, c, e.hook.ID); return err },
		"WebhookDeliveries": func(ctx context.Context) error {
			_, _, err := s.WebhookDeliveries(ctx, c, e.hook.ID)
			return err
		},
		"ReplayDelivery": func(ctx context.Context) error { _, err := s.ReplayDelivery(ctx, c, "whd_x"); return err },
	}
}

// TestNilCallerIsRefused: a nil caller (a route mounted without authentication) gets EUNAUTHORIZED from
// every method that changes state or shows an owner's data, and nothing in the store changes.
func TestNilCallerIsRefused(t *testing.T) {
	e := newAuthorityEnv(t)
	ops := e.callerOps(nil)
	if len(ops) != 14 {
		t.Fatalf("%d operations checked, want 14", len(ops))
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			err := op(t.Context())
			if seald.ErrorCode(err) != seald.EUNAUTHORIZED {
				t.Fatalf("nil caller: %v (code %q), want %s", err, seald.ErrorCode(err), seald.EUNAUTHORIZED)
			}
			e.unchanged(t)
		})
	}
}

// TestZeroCallerIsNotOperator: a Caller made as a literal, with no business, is nobody's: it sees no
// owner's record and changes nothing; only Operator makes the operator.
func TestZeroCallerIsNotOperator(t *testing.T) {
	e := newAuthorityEnv(t)
	for name, op := range e.callerOps(&seald.Caller{KeyID: "key_forged"}) {
		t.Run(name, func(t *testing.T) {
			switch code := seald.ErrorCode(op(t.Context())); code {
			case seald.EUNAUTHORIZED, seald.ENOTFOUND:
			default:
				t.Fatalf("a zero caller got %q, want unauthorized or not_found", code)
			}
			e.unchanged(t)
		})
	}
	if (&seald.Caller{}).IsOperator() || (*seald.Caller)(nil).IsOperator() || !seald.Operator().IsOperator() {
		t.Error("IsOperator is true only for Operator()")
	}
}

// TestAnonymousVerify: Verify is read-only, and there nil is an anonymous reader, who sees PUBLIC records
// and not PRIVATE ones.
func TestAnonymousVerify(t *testing.T) {
	e := newAuthorityEnv(t)
	v, err := e.svc.Verify(t.Context(), nil, seald.Lookup{Reference: e.pubRec.Reference})
	if err != nil || v.Record.Reference != e.pubRec.Reference || v.Business.Name != e.pubBusinessName {
		t.Fatalf("anonymous verify of a PUBLIC record: %+v, %v", v, err)
	}
	if _, err := e.svc.Verify(t.Context(), nil, seald.Lookup{Reference: e.privRec.Reference}); seald.ErrorCode(err) != seald.ENOTFOUND {
		t.Errorf("anonymous verify of a PRIVATE record: %v, want not_found", err)
	}
	if _, err := e.svc.Verify(t.Context(), nil, seald.Lookup{Hash: e.privRec.Hash}); seald.ErrorCode(err) != seald.ENOTFOUND {
		t.Errorf("anonymous verify of a PRIVATE record by hash: %v, want not_found", err)
	}
	e.unchanged(t)
}

// TestOperator: the operator acts on any business's records and details, sees PRIVATE records, is recorded
// as the actor "cli", and cannot do what belongs to a project (seal, webhooks).
func TestOperator(t *testing.T) {
	e := newAuthorityEnv(t)
	op, ctx := seald.Operator(), t.Context()
	if _, err := e.svc.Verify(ctx, op, seald.Lookup{Reference: e.privRec.Reference}); err != nil {
		t.Errorf("operator verify of a PRIVATE record: %v", err)
	}
	r, ch, err := e.svc.ChangeStatus(ctx, op, e.privRec.Reference, "SUSPENDED", "audit")
	if err != nil || r.Status != seald.StatusSuspended || ch.Actor != seald.ActorOperator {
		t.Fatalf("operator status change: %+v %+v %v", r, ch, err)
	}
	if _, trail, err := e.svc.History(ctx, op, e.privRec.Reference); err != nil || len(trail) != 1 || trail[0].Actor != "cli" {
		t.Errorf("operator history: %v %v", trail, err)
	}
	if _, erased, err := e.svc.Erase(ctx, op, e.pubRec.Reference, "asked by the data subject"); err != nil || !erased {
		t.Errorf("operator erase: %v %v", erased, err)
	}
	name := "Renamed by the operator"
	if b, _, err := e.svc.UpdateTenant(ctx, op, seald.TenantUpdate{BusinessID: e.priv.Business.BusinessID, Name: &name}); err != nil || b.Name != name {
		t.Errorf("operator tenant update: %+v %v", b, err)
	}
	for _, name := range []string{"Seal", "Generate", "CreateWebhook", "ListWebhooks", "DeleteWebhook", "WebhookDeliveries", "ReplayDelivery"} {
		if err := e.callerOps(op)[name](ctx); seald.ErrorCode(err) != seald.EUNAUTHORIZED {
			t.Errorf("operator %s: %v, want unauthorized", name, err)
		}
	}
	// An owner still cannot reach another business's record.
	if _, _, err := e.svc.ChangeStatus(ctx, e.pub, e.privRec.Reference, "ACTIVE", ""); seald.ErrorCode(err) != seald.ENOTFOUND {
		t.Errorf("owner changing another business's record: %v, want not_found", err)
	}
}
