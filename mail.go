package seald

import (
	"context"
	"time"
)

// Mail is one notification message of a record. The Mailer adds From, Date and the Message-ID.
type Mail struct {
	Reference        string   // the record's reference; the Message-ID is derived from it
	To               []string // at least one address
	Cc               []string
	Subject          string
	Body             string // plain text, or HTML when HTML is true
	HTML             bool
	Hash             string // appended to the body with the reference and the link
	VerificationLink string
	// Business and Project name who sealed the record; the message says so.
	Business, Project string
	// Since is when the record was accepted: no message about it was sent before. An outbox that keeps what
	// it sent looks for an earlier send of the record among the messages since then only (zero: all of them).
	Since time.Time
	// Data is the record's sealed data, its canonical JSON, attached as <Reference>.json: the recipient is
	// asked for it by the verification page. Nil when it is not given, and then Withheld says why
	// (docs/page.md, "The e-mail").
	Data     []byte
	Withheld string
	// Attachments are files the message carries after its text (the record's credential, when its project
	// attaches it); none leaves the message as it always was.
	Attachments []MailAttachment
}

// MailAttachment is one file attached to a message.
type MailAttachment struct {
	Name        string // the file name the recipient sees, e.g. "D-….credential.json"
	ContentType string // a media type without parameters, e.g. application/vc
	Data        []byte
}

// Why a Mail carries no Data.
const (
	WithheldPassword = "password"  // the record was sealed with a password: the data is the sealer's to give
	WithheldErased   = "erased"    // the record's data was erased before its e-mail left
	WithheldNoCopies = "no-copies" // the record's project hands out no copies of its data (downloads off)
)

// Mailer sends notification e-mail. The embedded default appends each message to an outbox, an mbox file in
// the data dir; the production adapter speaks SMTP.
//
// Send returns the Message-ID it used. Errors that retrying cannot mend (a 5xx rejection) are wrapped with
// Permanent; every other error is retried by the pipeline.
type Mailer interface {
	Send(ctx context.Context, m *Mail) (messageID string, err error)
}

// MailEraser is a Mailer that keeps the messages it sent (the embedded outbox) and can take a record's out
// when the record is erased. The erase job calls it; a Mailer that hands messages on (SMTP) keeps nothing.
type MailEraser interface {
	// EraseMail removes every kept message about reference; none is nothing to do.
	EraseMail(ctx context.Context, reference string) error
}
