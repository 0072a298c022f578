package pipeline

import (
	"context"
	"errors"

	"seald.dev/seald"
)

// attachCredential adds the record's credential to its e-mail when the record's project attached credentials
// when it was sealed (MailRequest.AttachCredential). The credential is issued once and kept before the e-mail
// leaves (seald.MailCredentials), so an attempt after a crash between the send and its save attaches the same
// bytes. Data that cannot be a credential sends the e-mail without one, as every attempt would.
func (p *Pipeline) attachCredential(ctx context.Context, r *seald.Record, m *seald.Mail) error {
	if !r.Mail.AttachCredential {
		return nil
	}
	if p.Credentials == nil {
		return errors.New("the record's e-mail carries its credential, and this process issues none")
	}
	a, err := p.Credentials.MailCredential(ctx, r)
	if err != nil {
		return err
	}
	if a == nil {
		p.Logger.Warn("the record's data cannot be a credential: its e-mail goes without one", "reference", r.Reference)
		return nil
	}
	m.Attachments = append(m.Attachments, *a)
	return nil
}
