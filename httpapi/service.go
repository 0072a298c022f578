package httpapi

import "seald.dev/seald"

// Service is the domain the API translates to: the root's service interfaces combined, never declared again
// here, so that a handler test fakes them with package mock and runs without a database, a chain or the
// binary. *service.Service satisfies it (asserted in this package's tests).
type Service interface {
	seald.RecordService
	seald.VerificationService
	seald.TenantService
	seald.WebhookService
	seald.IdentityService
}
