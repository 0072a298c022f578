// Package mail delivers the notification e-mail of a sealed record. Two seald.Mailer implementations share one
// message builder: Outbox, the embedded default, which appends each message to an mbox file, and SMTP,
// the production adapter, which submits it to a mail server over STARTTLS or implicit TLS. Open chooses one from
// the --smtp setting.
//
// The MIME encoding and the SMTP dialogue are those of github.com/wneessen/go-mail; this package only decides
// what goes into a message, refuses what could break its headers, and classifies the server's answers.
package mail

import (
	"bytes"
	"fmt"
	"html"
	"mime"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/microcosm-cc/bluemonday"
	gomail "github.com/wneessen/go-mail"

	"seald.dev/seald"
)

// maxReferenceLen bounds the reference that names the Message-ID, far above the 38 characters of a D- or I-
// reference, so that a corrupt value cannot make an absurd header.
const maxReferenceLen = 128

// composer turns a seald.Mail into a go-mail message. Outbox and SMTP share it so that a message in the outbox
// is byte for byte the kind of message the SMTP adapter would submit.
type composer struct {
	from   *mail.Address
	idHost string // right-hand side of every Message-ID
	now    func() time.Time
}

// newComposer parses the configured sender (--mail-from), which may carry a display name:
// `Seald <noreply@example.com>` or `noreply@example.com`.
func newComposer(from string) (*composer, error) {
	if err := checkHeaderValue("from", from); err != nil {
		return nil, err
	}
	if strings.TrimSpace(from) == "" {
		return nil, seald.Errorf(seald.EINVALID, "mail: the sender address (--mail-from) is required")
	}
	addr, err := mail.ParseAddress(from)
	if err != nil {
		return nil, seald.Errorf(seald.EINVALID, "mail: sender address %q: %v", from, err)
	}
	return &composer{from: addr, idHost: messageIDHost(addr.Address), now: time.Now}, nil
}

// messageIDHost derives the right-hand side of the Message-ID from the sender's domain, so that the ids of one
// deployment are recognisably its own ("seald.example.com"). A domain that is not a plain dot-atom (an address
// literal such as [192.0.2.1]) cannot stand there, and gets a reserved name instead.
func messageIDHost(address string) string {
	domain := strings.ToLower(address[strings.LastIndexByte(address, '@')+1:])
	if domain == "" || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") ||
		strings.Contains(domain, "..") {
		return "seald.invalid"
	}
	for _, r := range domain {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return "seald.invalid"
		}
	}
	return "seald." + domain
}

// built is one composed message with the facts the adapters need about it.
type built struct {
	msg        *gomail.Msg
	messageID  string // with angle brackets, as in the header
	recipients []string
}

// compose validates m and builds its message. Every fault it finds is in the caller's data, so retrying cannot
// mend it: the error is EINVALID, wrapped with seald.Permanent.
func (c *composer) compose(m *seald.Mail) (*built, error) {
	b, err := c.build(m)
	if err != nil {
		return nil, seald.Permanent(err)
	}
	return b, nil
}

func (c *composer) build(m *seald.Mail) (*built, error) {
	if m == nil {
		return nil, seald.Errorf(seald.EINVALID, "mail: no message")
	}
	if err := checkReference(m.Reference); err != nil {
		return nil, err
	}
	if err := checkHeaderValue("subject", m.Subject); err != nil {
		return nil, err
	}
	if !utf8.ValidString(m.Subject) || !utf8.ValidString(m.Body) {
		return nil, seald.Errorf(seald.EINVALID, "mail: subject and body must be UTF-8")
	}
	if len(m.To) == 0 {
		return nil, seald.Errorf(seald.EINVALID, "mail: at least one recipient (to) is required")
	}
	to, err := parseAddresses("to", m.To)
	if err != nil {
		return nil, err
	}
	cc, err := parseAddresses("cc", m.Cc)
	if err != nil {
		return nil, err
	}
	link, err := checkLink(m.VerificationLink)
	if err != nil {
		return nil, err
	}

	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	msg.FromMailAddress(c.from)
	msg.ToMailAddress(to...)
	if len(cc) > 0 {
		msg.CcMailAddress(cc...)
	}
	msg.Subject(m.Subject)
	msg.SetDateWithValue(c.now())
	// The id is a function of the reference and the sender alone, so a message sent again after a crash
	// carries the same id as the first and mail clients and archives can recognise it as a repeat.
	msg.SetMessageIDWithValue(m.Reference + "@" + c.idHost)
	id := "<" + m.Reference + "@" + c.idHost + ">"

	footer := footer{reference: m.Reference, hash: m.Hash, link: link, business: m.Business, project: m.Project,
		data: dataLine(m)}
	if m.HTML {
		// The body is the tenant's HTML: scripts, handlers, forms and styles that could deceive or track are
		// removed by bluemonday's policy for user content before it is sent under the service's name.
		// The policy keeps a fragment; it goes back into a document of its own.
		body := "<html><body>" + htmlPolicy.Sanitize(m.Body) + "</body></html>"
		msg.SetBodyString(gomail.TypeTextPlain, textFromHTML(body)+footer.text())
		msg.AddAlternativeString(gomail.TypeTextHTML, footer.addToHTML(body))
	} else {
		msg.SetBodyString(gomail.TypeTextPlain, m.Body+footer.text())
	}
	if m.Data != nil {
		// The exact bytes that were hashed, as a file: a mail client would rewrap or requote them in the text.
		if err := msg.AttachReader(dataFileName(m.Reference), bytes.NewReader(m.Data),
			gomail.WithFileContentType(gomail.ContentType("application/json"))); err != nil {
			return nil, seald.Errorf(seald.EINVALID, "mail: attach the data: %v", err)
		}
	}

	for _, a := range m.Attachments {
		if err := attach(msg, a); err != nil {
			return nil, err
		}
	}

	rcpts := make([]string, 0, len(to)+len(cc))
	for _, a := range append(to, cc...) {
		rcpts = append(rcpts, a.Address)
	}
	return &built{msg: msg, messageID: id, recipients: rcpts}, nil
}

// attach adds a file to the message after its text, base64-encoded, with its media type and a name that
// must be a plain file name: it goes into the Content-Type and Content-Disposition headers.
func attach(msg *gomail.Msg, a seald.MailAttachment) error {
	if err := checkHeaderValue("attachment name", a.Name); err != nil {
		return err
	}
	if a.Name == "" || strings.ContainsAny(a.Name, `/\"`) || !utf8.ValidString(a.Name) {
		return seald.Errorf(seald.EINVALID, "mail: attachment name %q is not a plain file name", a.Name)
	}
	if _, _, err := mime.ParseMediaType(a.ContentType); err != nil || strings.Contains(a.ContentType, ";") {
		return seald.Errorf(seald.EINVALID, "mail: attachment %s: %q is not a media type", a.Name, a.ContentType)
	}
	return msg.AttachReader(a.Name, bytes.NewReader(a.Data), gomail.WithFileContentType(gomail.ContentType(a.ContentType)),
		gomail.WithFileEncoding(gomail.EncodingB64))
}

// checkReference admits only the characters of a reference (letters, digits, '-', '.', '_'): the reference
// becomes the left part of the Message-ID and a field of the outbox's send log, where anything else could
// break the header or the line.
func checkReference(ref string) error {
	if ref == "" {
		return seald.Errorf(seald.EINVALID, "mail: the record reference is required")
	}
	if len(ref) > maxReferenceLen {
		return seald.Errorf(seald.EINVALID, "mail: reference longer than %d characters", maxReferenceLen)
	}
	for i, r := range ref {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			(i > 0 && (r == '-' || r == '.' || r == '_'))
		if !ok {
			return seald.Errorf(seald.EINVALID, "mail: reference %q has a character not allowed in a Message-ID", ref)
		}
	}
	return nil
}

// checkHeaderValue refuses CR, LF and the other control characters (tab excepted) in a value that ends up in a
// header: a line break there would let the value start a header of its own (header injection). The API
// refuses them too; this check holds for every other caller of the Mailer.
func checkHeaderValue(field, v string) error {
	for _, r := range v {
		if r == '\r' || r == '\n' {
			return seald.Errorf(seald.EINVALID, "mail: %s contains a line break", field)
		}
		if r < 0x20 && r != '\t' || r == 0x7f {
			return seald.Errorf(seald.EINVALID, "mail: %s contains a control character", field)
		}
	}
	return nil
}

// parseAddresses parses each entry as one RFC 5322 address (`a@example.com` or `Name <a@example.com>`); the
// caller has already split comma-separated lists.
func parseAddresses(field string, list []string) ([]*mail.Address, error) {
	out := make([]*mail.Address, 0, len(list))
	for _, s := range list {
		if err := checkHeaderValue(field, s); err != nil {
			return nil, err
		}
		a, err := mail.ParseAddress(s)
		if err != nil {
			return nil, seald.Errorf(seald.EINVALID, "mail: %s address %q: %v", field, s, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// footer is what every message ends with, in both parts: what lets the recipient find and check the record.
type footer struct {
	reference, hash, link string
	business, project     string // who sealed the record
	data                  string // where the data is (dataLine)
}

// sealedBy names the sealer: "Acme (project Invoices)".
func (f footer) sealedBy() string {
	if f.business == "" {
		return ""
	}
	if f.project == "" {
		return f.business
	}
	return f.business + " (project " + f.project + ")"
}

// htmlPolicy sanitizes HTML bodies (bluemonday's policy for user-generated content).
var htmlPolicy = bluemonday.UGCPolicy()

func (f footer) text() string {
	var b strings.Builder
	b.WriteString("\n\n--\n")
	if by := f.sealedBy(); by != "" {
		fmt.Fprintf(&b, "Sealed by: %s\n", by)
	}
	fmt.Fprintf(&b, "Reference: %s\n", f.reference)
	if f.hash != "" {
		fmt.Fprintf(&b, "Hash: %s\n", f.hash)
	}
	if f.link != "" {
		fmt.Fprintf(&b, "Verify: %s\n", f.link)
	}
	if f.data != "" {
		fmt.Fprintf(&b, "Data: %s\n", f.data)
	}
	return b.String()
}

// addToHTML appends the footer inside the body element when there is one, so that the document stays well
// formed, and at the end otherwise. Every value is escaped: the hash and the reference are data, and the link
// is only ever an http or https URL (checkLink).
func (f footer) addToHTML(body string) string {
	var b strings.Builder
	b.WriteString("\n<hr>\n<p>")
	if by := f.sealedBy(); by != "" {
		b.WriteString("Sealed by: ")
		b.WriteString(html.EscapeString(by))
		b.WriteString("<br>\n")
	}
	b.WriteString("Reference: <code>")
	b.WriteString(html.EscapeString(f.reference))
	b.WriteString("</code>")
	if f.hash != "" {
		b.WriteString("<br>\nHash: <code>")
		b.WriteString(html.EscapeString(f.hash))
		b.WriteString("</code>")
	}
	if f.link != "" {
		link := html.EscapeString(f.link)
		b.WriteString("<br>\nVerify: <a href=\"")
		b.WriteString(link)
		b.WriteString("\">")
		b.WriteString(link)
		b.WriteString("</a>")
	}
	if f.data != "" {
		b.WriteString("<br>\nData: ")
		b.WriteString(html.EscapeString(f.data))
	}
	b.WriteString("</p>\n")

	if i := lastIndexFold(body, "</body>"); i >= 0 {
		return body[:i] + b.String() + body[i:]
	}
	return body + b.String()
}

// lastIndexFold is strings.LastIndex for a lower-case ASCII sub, ignoring ASCII case in s. Only ASCII letters
// are folded, so the byte offsets of s are kept whatever else it holds.
func lastIndexFold(s, sub string) int {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return bytes.LastIndex(b, []byte(sub))
}
