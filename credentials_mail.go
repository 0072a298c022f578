package seald

import (
	"context"
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

// MailCredentialName is the file name of the credential attached to a record's e-mail.
func MailCredentialName(reference string) string { return reference + ".credential.json" }
