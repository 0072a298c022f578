package mail

import (
	"context"
	"fmt"
)

// Ping opens a session with the SMTP server as Send would (greeting, EHLO, STARTTLS per the policy, AUTH)
// and closes it with QUIT, sending nothing: the readiness check of /readyz. ctx bounds it.
func (s *SMTP) Ping(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client, err := s.client(ctx)
	if err != nil {
		return fmt.Errorf("mail: smtp %s: %w", s.addr(), err)
	}
	if err := client.DialWithContext(ctx); err != nil {
		return fmt.Errorf("mail: smtp %s: %w", s.addr(), err)
	}
	return client.Close()
}
