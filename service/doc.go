// Package service implements the root's service interfaces (seald.RecordService, seald.VerificationService,
// seald.TenantService, seald.WebhookService, seald.IdentityService, seald.CredentialService) with the rules of
// the requests made to seald: who may call, what a valid request is, what a caller may see, and which status
// changes are allowed. The domain it works on (records, businesses, keys, errors, the lifecycle and the store
// interfaces) is the root package's; this package holds no storage and no transport of its own.
package service
