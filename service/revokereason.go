package service

import (
	"context"

	"seald.dev/seald"
)

// revokeReason is the reason the owner gave when revoking a record, as its audit trail holds it: the public
// page shows it beside the revocation (a revoked diploma's page says why, not only that). "" when none
// was given.
func (s *Service) revokeReason(ctx context.Context, reference string) (string, error) {
	trail, err := s.Store.AuditTrail(ctx, reference)
	if err != nil {
		return "", err
	}
	for i := len(trail) - 1; i >= 0; i-- {
		if c := trail[i]; c.To == seald.StatusRevoked && c.From != seald.StatusRevoked && c.Action != seald.ActionErase {
			return c.Reason, nil
		}
	}
	return "", nil
}
