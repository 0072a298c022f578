package service

import (
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"

	"seald.dev/seald"
)

// dotAtom reports whether a local part is an RFC 5322 dot-atom: atext runs joined by single dots.
func dotAtom(local string) bool {
	for _, run := range strings.Split(local, ".") {
		if run == "" || strings.IndexFunc(run, func(r rune) bool {
			return r <= ' ' || r == 0x7f || strings.ContainsRune(`"(),:;<>@[\]`, r)
		}) >= 0 {
			return false
		}
	}
	return true
}

// checkText refuses text that is not valid UTF-8 or holds a control character (NUL, ESC, C1...), naming the
// member and the character: a name is shown on the verification page, in e-mails and in terminals, where
// those characters cut, hide or rewrite what is around them. Only a description keeps TAB and LF.
func checkText(member, v string, multiline bool) error {
	if !utf8.ValidString(v) {
		return seald.Errorf(seald.EINVALID, "%s is not valid UTF-8 text", member)
	}
	i := strings.IndexFunc(v, func(r rune) bool { return unicode.IsControl(r) && !(multiline && (r == '\t' || r == '\n')) })
	if i >= 0 {
		r, _ := utf8.DecodeRuneInString(v[i:])
		return seald.Errorf(seald.EINVALID, "%s must not contain control characters (U+%04X at byte %d)", member, r, i)
	}
	return nil
}

// checkLength refuses a member longer than max bytes, naming the member and the limit.
func checkLength(member, v string, max int) error {
	if len(v) > max {
		return seald.Errorf(seald.EINVALID, "%s is longer than %d bytes", member, max)
	}
	return nil
}

// parseAddresses parses one address or a comma-separated list for the named member. A CR or LF anywhere is
// refused first: header injection.
func parseAddresses(member, v string, required bool) ([]string, error) {
	if strings.ContainsAny(v, "\r\n") {
		return nil, seald.Errorf(seald.EINVALID, "%s must not contain CR or LF", member)
	}
	if strings.TrimSpace(v) == "" {
		if required {
			return nil, seald.Errorf(seald.EINVALID, "%s is required", member)
		}
		return nil, nil
	}
	list, err := mail.ParseAddressList(v)
	if err != nil {
		return nil, seald.Errorf(seald.EINVALID, "%s is not a valid e-mail address: %s", member, v)
	}
	out := make([]string, 0, len(list))
	for _, a := range list {
		at := strings.LastIndexByte(a.Address, '@')
		if at <= 0 || at == len(a.Address)-1 {
			return nil, seald.Errorf(seald.EINVALID, "%s is not a valid e-mail address: %s", member, a.Address)
		}
		if !dotAtom(a.Address[:at]) {
			// A local part that needs quoting ("john doe"@...) is valid RFC 5322 but refused by the mailer:
			// refused here, so that the record does not fail later.
			return nil, seald.Errorf(seald.EINVALID, "%s: a local part that needs quoting is not supported: %s", member, a.Address)
		}
		if a.Name == "" {
			out = append(out, a.Address)
		} else {
			out = append(out, a.String())
		}
	}
	if len(out) > 50 {
		return nil, seald.Errorf(seald.EINVALID, "%s has more than 50 addresses", member)
	}
	return out, nil
}
