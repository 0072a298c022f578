package service

import (
	"cmp"
	"context"
	"math"
	"strings"
	"time"

	"seald.dev/seald"
)

// CreateTenant creates a project with its API key. A business of the same name is joined, and its
// subscription key reused (unsealed from the store with the master key); otherwise the business and its
// subscription key are created too. All in one transaction. Only the operator (Operator) may.
func (s *Service) CreateTenant(ctx context.Context, c *seald.Caller, req seald.TenantRequest) (*seald.Tenant, error) {
	if err := operatorCaller(c); err != nil {
		return nil, err
	}
	return s.createTenant(ctx, req)
}

func (s *Service) createTenant(ctx context.Context, req seald.TenantRequest) (*seald.Tenant, error) {
	name := strings.TrimSpace(req.Business)
	if name == "" {
		return nil, seald.Errorf(seald.EINVALID, "business name is required")
	}
	pname := strings.TrimSpace(req.Project)
	if pname == "" {
		return nil, seald.Errorf(seald.EINVALID, "project name is required")
	}
	if err := cmp.Or(checkText("business name", name, false), checkText("project name", pname, false),
		checkText("description", req.Description, true), checkText("website", req.Website, false),
		checkText("logo", req.Logo, false),
		checkLength("business name", name, seald.MaxName), checkLength("project name", pname, seald.MaxName),
		checkLength("description", req.Description, seald.MaxDescription), checkLength("website", req.Website, seald.MaxDescription),
		checkLength("logo", req.Logo, seald.MaxDescription)); err != nil {
		return nil, err
	}
	privacy := req.Privacy
	if privacy == "" {
		privacy = seald.PrivacyPublic
	}
	if privacy != seald.PrivacyPublic && privacy != seald.PrivacyPrivate {
		return nil, seald.Errorf(seald.EINVALID, "privacy must be PUBLIC or PRIVATE")
	}
	network, err := seald.ParseNetwork(req.Network)
	if err != nil {
		return nil, err
	}
	now := s.now()
	t := &seald.Tenant{}
	b, err := s.Store.BusinessByName(ctx, name)
	switch seald.ErrorCode(err) {
	case "":
		// Joining a business: details given for it must be its own, not silently dropped.
		if w := strings.TrimSpace(req.Website); w != "" && w != b.Website {
			return nil, seald.Errorf(seald.EINVALID, "business %q exists with website %q, not %q: change it with `seald tenant update --business %s --website …`",
				name, b.Website, w, b.BusinessID)
		}
		t.Business = b
	case seald.ENOTFOUND:
		t.Business = &seald.Business{
			ID: newUUID(), BusinessID: seald.NewID("biz_"), Name: name,
			Description: req.Description, Website: req.Website, Logo: req.Logo, DateRegistered: now,
		}
	default:
		return nil, err
	}
	if err := checkRate(req.RateLimit, req.RateBurst); err != nil {
		return nil, err
	}
	var retain time.Duration
	if req.Retain != "" {
		if retain, err = seald.ParseRetention("retain", req.Retain); err != nil {
			return nil, err
		}
	}
	t.Project = &seald.Project{
		ID: newUUID(), ProjectID: seald.NewID("prj_"), BusinessID: t.Business.BusinessID, Name: pname,
		Description: req.Description, Logo: req.Logo, Privacy: privacy, Network: network, Downloadable: true,
		CreatedAt: now, RateLimit: req.RateLimit, RateBurst: req.RateBurst, Retain: retain,
	}
	apiSecret, apiKey, err := seald.NewKeySecret(seald.KeyProject)
	if err != nil {
		return nil, err
	}
	apiKey.BusinessID, apiKey.ProjectID, apiKey.CreatedAt = t.Business.BusinessID, t.Project.ProjectID, now
	t.APIKey = apiSecret
	if b != nil {
		if t.SubscriptionKey, err = s.subscriptionSecret(ctx, b.BusinessID, now); err != nil {
			return nil, err
		}
		return t, s.Store.CreateProject(ctx, t.Project, apiKey)
	}
	subSecret, subKey, err := s.newSubscriptionKey(t.Business.BusinessID, now)
	if err != nil {
		return nil, err
	}
	t.SubscriptionKey = subSecret
	return t, s.Store.CreateBusiness(ctx, t.Business, t.Project, subKey, apiKey)
}

func (s *Service) newSubscriptionKey(businessID string, now time.Time) (string, *seald.Key, error) {
	secret, k, err := seald.NewKeySecret(seald.KeySubscription)
	if err != nil {
		return "", nil, err
	}
	k.BusinessID, k.CreatedAt = businessID, now
	if k.Sealed, err = s.Secrets.SealString(secret, "subscription-key"); err != nil {
		return "", nil, err
	}
	return secret, k, nil
}

// subscriptionSecret returns the newest active subscription secret of a business.
func (s *Service) subscriptionSecret(ctx context.Context, businessID string, now time.Time) (string, error) {
	keys, err := s.Store.Keys(ctx, businessID)
	if err != nil {
		return "", err
	}
	var best *seald.Key
	for _, k := range keys {
		if k.Kind == seald.KeySubscription && k.Active(now) && k.Sealed != "" && (best == nil || k.CreatedAt.After(best.CreatedAt)) {
			best = k
		}
	}
	if best == nil {
		return "", seald.Errorf(seald.ECONFLICT, "business %s has no active subscription key; issue one with `seald key issue`", businessID)
	}
	return s.Secrets.OpenString(best.Sealed, "subscription-key")
}

// IssueKey issues a new key for the operator (Operator): a subscription key of a business (projectID empty)
// or an API key of a project.
func (s *Service) IssueKey(ctx context.Context, c *seald.Caller, businessID, projectID string) (string, *seald.Key, error) {
	if err := operatorCaller(c); err != nil {
		return "", nil, err
	}
	return s.issueKey(ctx, businessID, projectID)
}

func (s *Service) issueKey(ctx context.Context, businessID, projectID string) (string, *seald.Key, error) {
	now := s.now()
	if projectID != "" {
		p, err := s.Store.Project(ctx, projectID)
		if err != nil {
			return "", nil, err
		}
		secret, k, err := seald.NewKeySecret(seald.KeyProject)
		if err != nil {
			return "", nil, err
		}
		k.BusinessID, k.ProjectID, k.CreatedAt = p.BusinessID, p.ProjectID, now
		return secret, k, s.Store.CreateKey(ctx, k)
	}
	if _, err := s.Store.Business(ctx, businessID); err != nil {
		return "", nil, err
	}
	secret, k, err := s.newSubscriptionKey(businessID, now)
	if err != nil {
		return "", nil, err
	}
	return secret, k, s.Store.CreateKey(ctx, k)
}

// RotateKey issues a successor of a key of the same kind and owner; the old key keeps working for overlap
// (zero revokes it at once), or until the expiry it already had when that is sooner, so clients can switch
// without an outage. The old key's new expiry holds at once in this process and within CacheTTL in the
// others. Only the operator (Operator) may.
func (s *Service) RotateKey(ctx context.Context, c *seald.Caller, keyID string, overlap time.Duration) (string, *seald.Key, error) {
	if err := operatorCaller(c); err != nil {
		return "", nil, err
	}
	return s.rotateKey(ctx, keyID, overlap)
}

func (s *Service) rotateKey(ctx context.Context, keyID string, overlap time.Duration) (string, *seald.Key, error) {
	old, err := s.Store.Key(ctx, keyID)
	if err != nil {
		return "", nil, err
	}
	now := s.now()
	if !old.Active(now) {
		return "", nil, seald.Errorf(seald.EINVALID, "key %s is no longer active", keyID)
	}
	if overlap < 0 {
		return "", nil, seald.Errorf(seald.EINVALID, "overlap must not be negative")
	}
	secret, k, err := s.issueKey(ctx, old.BusinessID, old.ProjectID)
	if err != nil {
		return "", nil, err
	}
	exp := now.Add(overlap)
	switch {
	case overlap == 0:
		old.RevokedAt = &now
	case old.ExpiresAt == nil || exp.Before(*old.ExpiresAt):
		old.ExpiresAt = &exp
		// A key already in its overlap keeps the earlier expiry: a rotation only ever shortens a key's life,
		// so that a leaked key rotated away cannot be kept alive by rotating it again.
	}
	err = s.Store.UpdateKey(ctx, old)
	s.cache.invalidate() // a cached pair holding the old key must learn its new expiry now, not in CacheTTL
	return secret, k, err
}

// RevokeKey revokes a key for the operator (Operator): at once in this process, within CacheTTL in the others.
func (s *Service) RevokeKey(ctx context.Context, c *seald.Caller, keyID string) (*seald.Key, error) {
	if err := operatorCaller(c); err != nil {
		return nil, err
	}
	return s.revokeKey(ctx, keyID)
}

func (s *Service) revokeKey(ctx context.Context, keyID string) (*seald.Key, error) {
	k, err := s.Store.Key(ctx, keyID)
	if err != nil {
		return nil, err
	}
	if k.RevokedAt == nil {
		now := s.now()
		k.RevokedAt = &now
		err := s.Store.UpdateKey(ctx, k)
		s.cache.invalidate() // the key stops working in this process at once, not in CacheTTL
		if err != nil {
			return nil, err
		}
	}
	return k, nil
}

// EnsureDefaultTenant creates a default business and project on an empty store; created is nil when the store
// already had a business. Only the operator (Operator) may.
func (s *Service) EnsureDefaultTenant(ctx context.Context, c *seald.Caller) (*seald.Tenant, error) {
	if err := operatorCaller(c); err != nil {
		return nil, err
	}
	n, err := s.Store.CountBusinesses(ctx)
	if err != nil || n > 0 {
		return nil, err
	}
	return s.createTenant(ctx, seald.TenantRequest{Business: "Default business", Project: "Default project",
		Description: "Created at first start"})
}

// checkRate refuses a negative or non-finite rate or burst.
func checkRate(perSecond float64, burst int) error {
	if perSecond < 0 || math.IsNaN(perSecond) || math.IsInf(perSecond, 0) || burst < 0 {
		return seald.Errorf(seald.EINVALID, "a rate limit and burst are 0 (the server's) or more")
	}
	return nil
}

// SetProjectRate changes a project's own request rate per API key (0: the server's). Instances that cached
// the project see it within the auth cache's lifetime. Only the operator (Operator) may.
func (s *Service) SetProjectRate(ctx context.Context, c *seald.Caller, projectID string, perSecond float64, burst int) error {
	if err := operatorCaller(c); err != nil {
		return err
	}
	if err := checkRate(perSecond, burst); err != nil {
		return err
	}
	return s.Store.SetProjectRate(ctx, projectID, perSecond, burst)
}

// UpdateTenant applies u for the operator (Operator), any business, or for the owner c, who may change only
// its own business and project (another id is ENOTFOUND, as for one that does not exist); a nil caller is
// EUNAUTHORIZED. Names keep the rules of creation. Cached copies are dropped, so the next answer of this
// instance shows the change.
func (s *Service) UpdateTenant(ctx context.Context, c *seald.Caller, u seald.TenantUpdate) (*seald.Business, *seald.Project, error) {
	if c == nil {
		return nil, nil, errNoCaller()
	}
	if !c.IsOperator() && (!c.Owns(u.BusinessID) || u.ProjectID != "" && (c.Project == nil || u.ProjectID != c.Project.ProjectID)) {
		return nil, nil, seald.Errorf(seald.ENOTFOUND, "no such business or project")
	}
	ch := &seald.TenantChange{BusinessID: u.BusinessID, ProjectID: u.ProjectID}
	// Each member given is checked and trimmed here; the store writes those, and only those, in one
	// transaction, so an update racing another one of other members loses nothing, and a refused member
	// leaves everything as it was. Members are named as the API names them.
	set := func(dst **string, v *string, member string, limit int, required, multiline bool) error {
		if v == nil {
			return nil
		}
		x := strings.TrimSpace(*v)
		if required && x == "" {
			return seald.Errorf(seald.EINVALID, "%s cannot be empty", member)
		}
		if err := cmp.Or(checkText(member, x, multiline), checkLength(member, x, limit)); err != nil {
			return err
		}
		*dst = &x
		return nil
	}
	if err := cmp.Or(set(&ch.Name, u.Name, "name", seald.MaxName, true, false),
		set(&ch.Description, u.Description, "description", seald.MaxDescription, false, true),
		set(&ch.Logo, u.Logo, "logo", seald.MaxDescription, false, false), set(&ch.Website, u.Website, "website", seald.MaxDescription, false, false),
		set(&ch.ProjectName, u.ProjectName, "project_name", seald.MaxName, true, false),
		set(&ch.ProjectDescription, u.ProjectDescription, "project_description", seald.MaxDescription, false, true),
		set(&ch.ProjectLogo, u.ProjectLogo, "project_logo", seald.MaxDescription, false, false)); err != nil {
		return nil, nil, err
	}
	if u.ProjectID == "" && (u.ProjectName != nil || u.ProjectDescription != nil || u.ProjectLogo != nil || u.Retain != nil) {
		return nil, nil, seald.Errorf(seald.EINVALID, "project details need the project")
	}
	if u.Retain != nil {
		retain, err := seald.ParseRetention("retain", *u.Retain)
		if err != nil {
			return nil, nil, err
		}
		ch.Retain = &retain
	}
	b, p, err := s.Store.UpdateTenant(ctx, ch)
	if err != nil {
		if seald.ErrorCode(err) == seald.ECONFLICT && ch.Name != nil {
			return nil, nil, seald.Errorf(seald.ECONFLICT, "another business is named %q", *ch.Name)
		}
		return nil, nil, err
	}
	s.cache.invalidate()
	return b, p, nil
}
