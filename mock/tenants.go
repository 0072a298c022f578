package mock

import (
	"context"
	"time"

	"seald.dev/seald"
)

// TenantService fakes seald.TenantService with one function field per method; a test sets the ones its handler calls.
type TenantService struct {
	AuthenticateFn        func(ctx context.Context, subscriptionKey, apiKey string) (*seald.Caller, error)
	UpdateTenantFn        func(ctx context.Context, c *seald.Caller, u seald.TenantUpdate) (*seald.Business, *seald.Project, error)
	ProjectKeysFn         func(ctx context.Context, c *seald.Caller) ([]*seald.Key, error)
	IssueProjectKeyFn     func(ctx context.Context, c *seald.Caller) (string, *seald.Key, error)
	RotateProjectKeyFn    func(ctx context.Context, c *seald.Caller, keyID string, overlap time.Duration) (string, *seald.Key, error)
	RevokeProjectKeyFn    func(ctx context.Context, c *seald.Caller, keyID string) (*seald.Key, error)
	CreateTenantFn        func(ctx context.Context, c *seald.Caller, req seald.TenantRequest) (*seald.Tenant, error)
	EnsureDefaultTenantFn func(ctx context.Context, c *seald.Caller) (*seald.Tenant, error)
	IssueKeyFn            func(ctx context.Context, c *seald.Caller, businessID, projectID string) (string, *seald.Key, error)
	RotateKeyFn           func(ctx context.Context, c *seald.Caller, keyID string, overlap time.Duration) (string, *seald.Key, error)
	RevokeKeyFn           func(ctx context.Context, c *seald.Caller, keyID string) (*seald.Key, error)
	SetProjectRateFn      func(ctx context.Context, c *seald.Caller, projectID string, perSecond float64, burst int) error
}

var _ seald.TenantService = (*TenantService)(nil)

// Authenticate calls AuthenticateFn.
func (s *TenantService) Authenticate(ctx context.Context, subscriptionKey, apiKey string) (*seald.Caller, error) {
	if s.AuthenticateFn == nil {
		unset("TenantService", "Authenticate")
	}
	return s.AuthenticateFn(ctx, subscriptionKey, apiKey)
}

// UpdateTenant calls UpdateTenantFn.
func (s *TenantService) UpdateTenant(ctx context.Context, c *seald.Caller, u seald.TenantUpdate) (*seald.Business, *seald.Project, error) {
	if s.UpdateTenantFn == nil {
		unset("TenantService", "UpdateTenant")
	}
	return s.UpdateTenantFn(ctx, c, u)
}

// ProjectKeys calls ProjectKeysFn.
func (s *TenantService) ProjectKeys(ctx context.Context, c *seald.Caller) ([]*seald.Key, error) {
	if s.ProjectKeysFn == nil {
		unset("TenantService", "ProjectKeys")
	}
	return s.ProjectKeysFn(ctx, c)
}

// IssueProjectKey calls IssueProjectKeyFn.
func (s *TenantService) IssueProjectKey(ctx context.Context, c *seald.Caller) (string, *seald.Key, error) {
	if s.IssueProjectKeyFn == nil {
		unset("TenantService", "IssueProjectKey")
	}
	return s.IssueProjectKeyFn(ctx, c)
}

// RotateProjectKey calls RotateProjectKeyFn.
func (s *TenantService) RotateProjectKey(ctx context.Context, c *seald.Caller, keyID string, overlap time.Duration) (string, *seald.Key, error) {
	if s.RotateProjectKeyFn == nil {
		unset("TenantService", "RotateProjectKey")
	}
	return s.RotateProjectKeyFn(ctx, c, keyID, overlap)
}

// RevokeProjectKey calls RevokeProjectKeyFn.
func (s *TenantService) RevokeProjectKey(ctx context.Context, c *seald.Caller, keyID string) (*seald.Key, error) {
	if s.RevokeProjectKeyFn == nil {
		unset("TenantService", "RevokeProjectKey")
	}
	return s.RevokeProjectKeyFn(ctx, c, keyID)
}

// CreateTenant calls CreateTenantFn.
func (s *TenantService) CreateTenant(ctx context.Context, c *seald.Caller, req seald.TenantRequest) (*seald.Tenant, error) {
	if s.CreateTenantFn == nil {
		unset("TenantService", "CreateTenant")
	}
	return s.CreateTenantFn(ctx, c, req)
}

// EnsureDefaultTenant calls EnsureDefaultTenantFn.
func (s *TenantService) EnsureDefaultTenant(ctx context.Context, c *seald.Caller) (*seald.Tenant, error) {
	if s.EnsureDefaultTenantFn == nil {
		unset("TenantService", "EnsureDefaultTenant")
	}
	return s.EnsureDefaultTenantFn(ctx, c)
}

// IssueKey calls IssueKeyFn.
func (s *TenantService) IssueKey(ctx context.Context, c *seald.Caller, businessID, projectID string) (string, *seald.Key, error) {
	if s.IssueKeyFn == nil {
		unset("TenantService", "IssueKey")
	}
	return s.IssueKeyFn(ctx, c, businessID, projectID)
}

// RotateKey calls RotateKeyFn.
func (s *TenantService) RotateKey(ctx context.Context, c *seald.Caller, keyID string, overlap time.Duration) (string, *seald.Key, error) {
	if s.RotateKeyFn == nil {
		unset("TenantService", "RotateKey")
	}
	return s.RotateKeyFn(ctx, c, keyID, overlap)
}

// RevokeKey calls RevokeKeyFn.
func (s *TenantService) RevokeKey(ctx context.Context, c *seald.Caller, keyID string) (*seald.Key, error) {
	if s.RevokeKeyFn == nil {
		unset("TenantService", "RevokeKey")
	}
	return s.RevokeKeyFn(ctx, c, keyID)
}

// SetProjectRate calls SetProjectRateFn.
func (s *TenantService) SetProjectRate(ctx context.Context, c *seald.Caller, projectID string, perSecond float64, burst int) error {
	if s.SetProjectRateFn == nil {
		unset("TenantService", "SetProjectRate")
	}
	return s.SetProjectRateFn(ctx, c, projectID, perSecond, burst)
}
