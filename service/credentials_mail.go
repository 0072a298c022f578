package service

import (
	"context"
	"errors"

	"seald.dev/seald"
)

var _ seald.MailCredentials = (*Credentials)(nil)

// mailCredentialPurpose binds a kept credential's sealing to its record.
func mailCredentialPurpose(reference string) string { return "mail-credential:" + reference }

// attachesCredential says whether a record sealed now by a project carries its credential in its e-mail: when
// the project asks for it, and only when its owner could download the same credential without a secret, so
// that the e-mail never carries what a record's password or a project's refusal of downloads protects.
func attachesCredential(p *seald.Project, hasPassword bool) bool {
	return p != nil && p.AttachCredential && p.Downloadable && !hasPassword
}

// MailCredential issues (once) and returns the W3C VC 2.0 credential of r for its e-mail, with the media type
// application/vc that VC 2.0 registers for a credential secured by an embedded proof. It needs a store that
// keeps credentials (Statuses implementing MailCredentialStore). A record whose data cannot be a credential
// gives nil, nil; a fault that retrying may mend (IPFS unreachable) is an error.
func (cs *Credentials) MailCredential(ctx context.Context, r *seald.Record) (*seald.MailAttachment, error) {
	keep, ok := cs.Statuses.(seald.MailCredentialStore)
	if !ok {
		return nil, &seald.Error{Code: seald.EINTERNAL, Op: "MailCredential", Message: "the store keeps no credentials for e-mail"}
	}
	wrap := cs.Service.Secrets
	purpose := mailCredentialPurpose(r.Reference)
	sealed, err := keep.MailCredential(ctx, r.Reference)
	if seald.ErrorCode(err) == seald.ENOTFOUND {
		ic, ierr := cs.Credential(ctx, seald.Operator(), r.Reference, "", seald.FormatVC)
		if c := seald.ErrorCode(ierr); c == seald.EINVALID || c == seald.EGONE {
			// Data that cannot be claims (a name beginning with @, say), or a record erased since: no
			// credential, now or at any later attempt.
			return nil, nil
		}
		if ierr != nil {
			return nil, ierr
		}
		s, serr := wrap.SealString(string(ic.Credential), purpose)
		if serr != nil {
			return nil, serr
		}
		sealed, err = keep.KeepMailCredential(ctx, r.Reference, s)
		if seald.ErrorCode(err) == seald.ENOTFOUND {
			return nil, nil // erased meanwhile: its e-mail is not sent
		}
	}
	if err != nil {
		return nil, err
	}
	vc, err := wrap.OpenString(sealed, purpose)
	if err != nil {
		return nil, errors.Join(errors.New("open the credential kept for the e-mail of "+r.Reference), err)
	}
	return &seald.MailAttachment{Name: seald.MailCredentialName(r.Reference), ContentType: seald.MediaTypeVC, Data: []byte(vc)}, nil
}
