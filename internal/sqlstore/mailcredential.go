package sqlstore

import (
	"context"

	"seald.dev/seald"
)

var _ seald.MailCredentialStore = (*Store)(nil)

// MailCredential returns the credential kept for a record's e-mail (sealed); ENOTFOUND when none is.
func (s *Store) MailCredential(ctx context.Context, reference string) (string, error) {
	op := s.op("MailCredential")
	return one(ctx, s, op, func(row Row) (string, error) {
		var c string
		err := row.Scan(&c)
		return c, err
	}, NotFound(op, "no credential kept for the e-mail of %s", reference),
		`SELECT credential FROM mail_credentials WHERE reference = ?`, reference)
}

// KeepMailCredential saves sealed as the credential of a record's e-mail unless one is kept already, and
// returns the one kept: of two notify steps racing, both send the first one saved. A record that is erased
// (or unknown) keeps none: ENOTFOUND, since its e-mail is not sent.
func (s *Store) KeepMailCredential(ctx context.Context, reference, sealed string) (string, error) {
	op := s.op("KeepMailCredential")
	var kept string
	err := s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		if _, err := q.Exec(ctx, `INSERT INTO mail_credentials (reference, credential)
			SELECT reference, ? FROM records WHERE reference = ? AND erased_at IS NULL
			ON CONFLICT (reference) DO NOTHING`, sealed, reference); err != nil {
			return err
		}
		err := q.QueryRow(ctx, `SELECT credential FROM mail_credentials WHERE reference = ?`, reference).Scan(&kept)
		return orMissing(err, NotFound(op, "record %s is erased or unknown: no credential is kept for its e-mail", reference))
	})
	return kept, err
}
