package mock

import (
	"context"

	"seald.dev/seald"
	"seald.dev/seald/didweb"
)

// IdentityService fakes seald.IdentityService.
type IdentityService struct {
	SetIdentityFn   func(ctx context.Context, c *seald.Caller, req seald.IdentityRequest) (*seald.Identity, *didweb.Document, error)
	CheckIdentityFn func(ctx context.Context, c *seald.Caller) (*seald.Identity, *didweb.Document, error)
	IdentityOfFn    func(ctx context.Context, c *seald.Caller) (*seald.Identity, *didweb.Document, error)
}

// SetIdentity calls SetIdentityFn.
func (f *IdentityService) SetIdentity(ctx context.Context, c *seald.Caller, req seald.IdentityRequest) (*seald.Identity, *didweb.Document, error) {
	if f.SetIdentityFn == nil {
		unset("IdentityService", "SetIdentity")
	}
	return f.SetIdentityFn(ctx, c, req)
}

// CheckIdentity calls CheckIdentityFn.
func (f *IdentityService) CheckIdentity(ctx context.Context, c *seald.Caller) (*seald.Identity, *didweb.Document, error) {
	if f.CheckIdentityFn == nil {
		unset("IdentityService", "CheckIdentity")
	}
	return f.CheckIdentityFn(ctx, c)
}

// IdentityOf calls IdentityOfFn.
func (f *IdentityService) IdentityOf(ctx context.Context, c *seald.Caller) (*seald.Identity, *didweb.Document, error) {
	if f.IdentityOfFn == nil {
		unset("IdentityService", "IdentityOf")
	}
	return f.IdentityOfFn(ctx, c)
}
