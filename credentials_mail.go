package seald

import (
	"context"
	"errors"
)

// The credential a record's notification e-mail carries when its project attaches it (Project.AttachCredential,
// docs/credentials.md). It is the credential GET /verification/api/v1/credential gives, issued once: kept,
// sealed with the master key, before the e-mail leaves, and sent from what was kept by every later attempt,
// so that a notify step run again after a crash sends the same e-mail with the same credential, whether the
// signing key was rotated or the issuer changed meanwhile. An erasure deletes the kept copy with the data.

// MailCredentialStore keeps the credential of each record's e-mail.
type MailCredentialStore interface {
	// MailCredential returns the credential kept for a record's e-mail, sealed; ENOTFOUND when none is.
	MailCredential(ctx context.Context, reference string) (string, error)
	// KeepMailCredential saves sealed unless a credential is kept for the record already, and returns the one
	// kept; ENOTFOUND for a record that is erased or unknown.
	KeepMailCredential(ctx context.Context, reference, sealed string) (string, error)
}

// MailCredentials gives the pipeline the credential a record's e-mail carries; Credentials is one.
type MailCredentials interface {
	// MailCredential returns the attachment of the record's e-mail, nil when the record's data cannot be a
	// credential (the e-mail then goes without it, as every attempt would find the same).
	MailCredential(ctx context.Context, r *Record) (*MailAttachment, error)
}

var _ MailCredentials = (*Credentials)(nil)

// MailCredentialName is the file name of the credential attached to a record's e-mail.
func MailCredentialName(reference string) string { return reference + ".credential.json" }

// mailCredentialPurpose binds a kept credential's sealing to its record.
func mailCredentialPurpose(reference string) string { return "mail-credential:" + reference }

// attachesCredential says whether a record sealed now by a project carries its credential in its e-mail: when
// the project asks for it, and only when its owner could download the same credential without a secret, so
// that the e-mail never carries what a record's password or a project's refusal of downloads protects.
func attachesCredential(p *Project, hasPassword bool) bool {
	return p != nil && p.AttachCredential && p.Downloadable && !hasPassword
}

// MailCredential issues (once) and returns the W3C VC 2.0 credential of r for its e-mail, with the media type
// application/vc that VC 2.0 registers for a credential secured by an embedded proof. It needs a store that
// keeps credentials (Statuses implementing MailCredentialStore). A record whose data cannot be a credential
// gives nil, nil; a fault that retrying may mend (IPFS unreachable) is an error.
func (cs *Credentials) MailCredential(ctx context.Context, r *Record) (*MailAttachment, error) {
	keep, ok := cs.Statuses.(MailCredentialStore)
	if !ok {
		return nil, &Error{Code: EINTERNAL, Op: "MailCredential", Message: "the store keeps no credentials for e-mail"}
	}
	wrap := cs.Service.Secrets
	purpose := mailCredentialPurpose(r.Reference)
	sealed, err := keep.MailCredential(ctx, r.Reference)
	if ErrorCode(err) == ENOTFOUND {
		ic, ierr := cs.Credential(ctx, Operator(), r.Reference, "", FormatVC)
		if c := ErrorCode(ierr); c == EINVALID || c == EGONE {
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
		if ErrorCode(err) == ENOTFOUND {
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
	return &MailAttachment{Name: MailCredentialName(r.Reference), ContentType: MediaTypeVC, Data: []byte(vc)}, nil
}
