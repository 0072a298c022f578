package mock

import (
	"context"

	"seald.dev/seald"
	"seald.dev/seald/didweb"
)

// IdentityFns fakes the domain identity operations of a Service.
type IdentityFns struct {
	SetIdentityFn   func(ctx context.Context, c *seald.Caller, req seald.IdentityRequest) (*seald.Identity, *didweb.Document, error)
	CheckIdentityFn func(ctx context.Context, c *seald.Caller) (*seald.Identity, *didweb.Document, error)
	IdentityOfFn    func(ctx context.Context, c *seald.Caller) (*seald.Identity, *didweb.Document, error)
}

// SetIdentity calls SetIdentityFn.
func (f *IdentityFns) SetIdentity(ctx context.Context, c *seald.Caller, req seald.IdentityRequest) (*seald.Identity, *didweb.Document, error) {
	if f.SetIdentityFn == nil {
		unset("SetIdentity")
	}
	return f.SetIdentityFn(ctx, c, req)
}

// CheckIdentity calls CheckIdentityFn.
func (f *IdentityFns) CheckIdentity(ctx context.Context, c *seald.Caller) (*seald.Identity, *didweb.Document, error) {
	if f.CheckIdentityFn == nil {
		unset("CheckIdentity")
	}
	return f.CheckIdentityFn(ctx, c)
}

// IdentityOf calls IdentityOfFn.
func (f *IdentityFns) IdentityOf(ctx context.Context, c *seald.Caller) (*seald.Identity, *didweb.Document, error) {
	if f.IdentityOfFn == nil {
		unset("IdentityOf")
	}
	return f.IdentityOfFn(ctx, c)
}
