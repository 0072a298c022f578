package service

import (
	"seald.dev/seald"
)

var (
	_ seald.RecordService       = (*Service)(nil)
	_ seald.VerificationService = (*Service)(nil)
	_ seald.TenantService       = (*Service)(nil)
	_ seald.WebhookService      = (*Service)(nil)
)

var _ seald.CredentialService = (*Credentials)(nil)
