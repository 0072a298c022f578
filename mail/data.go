package mail

import "seald.dev/seald"

// The record's data in its e-mail (docs/page.md, "The e-mail"): the verification page asks its visitor to
// paste the JSON they were given, so the message gives it, as an attachment of the exact bytes that were
// hashed, or says why it does not and how to get it.

// dataFileName is the attachment's name: the record's reference, so that a recipient with several knows
// which is which.
func dataFileName(reference string) string { return reference + ".json" }

// dataLine is the footer's line about the data.
func dataLine(m *seald.Mail) string {
	by := "the sender"
	if m.Business != "" {
		by = m.Business
	}
	switch {
	case m.Data != nil:
		return "attached as " + dataFileName(m.Reference) + ", the exact JSON that was sealed: paste it into (or drop the file on) the verification page to check it."
	case m.Withheld == seald.WithheldPassword:
		return "not attached, because it was sealed with a password. Ask " + by + " for the data, then paste it into the verification page to check it."
	case m.Withheld == seald.WithheldNoCopies:
		return "not attached: " + by + " hands out no copies of the data. Whoever holds it can check it on the verification page."
	case m.Withheld == seald.WithheldErased:
		return "not attached: " + by + " erased it. Whoever holds it can still check it on the verification page."
	}
	return ""
}
