// Package mock fakes the domain for the handler tests of httpapi, web and console: one fake per service
// interface of the root (RecordService, VerificationService, TenantService, WebhookService), each with one
// function field per method, and a test sets only the ones its handler needs. A method whose field is nil
// panics with its name, so a test that reaches a method it did not expect fails loudly (the HTTP layer
// recovers the panic into a 500, which the test sees). Fakes are for the HTTP layer only: the rules
// themselves are tested against the real Service and real stores.
package mock

import "seald.dev/seald"

// Service is the four fakes together, for a consumer that combines the four interfaces (httpapi.Service,
// console.Source); their fields are promoted, so a test sets svc.VerifyFn directly.
type Service struct {
	RecordService
	VerificationService
	TenantService
	WebhookService
	IdentityService
}

var (
	_ seald.RecordService       = (*Service)(nil)
	_ seald.VerificationService = (*Service)(nil)
	_ seald.TenantService       = (*Service)(nil)
	_ seald.WebhookService      = (*Service)(nil)
	_ seald.IdentityService     = (*Service)(nil)
)

func unset(fake, name string) { panic("mock: " + fake + "." + name + "Fn is not set") }
