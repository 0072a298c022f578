package seald

// DefaultSubject is the e-mail subject when the caller gives none.
const DefaultSubject = "Your data has been authenticated"

// DefaultBody is the e-mail text when the caller gives none; the mailer appends the reference, the hash and
// the verification link.
const DefaultBody = "Data has been sealed for you with seald. Anyone holding it can check that it is unchanged, and see who sealed it and when, at the verification link below."
