package mail

import (
	"bufio"
	"bytes"
	"fmt"
	"net/mail"
	"strings"
	"time"
)

// The outbox is an mbox in its mboxrd dialect, the one that every reader can undo exactly. Each message is
// a "From " separator line (the envelope sender and the time in asctime form, in UTC), the message's lines,
// and an empty line. A line of the message that starts with any number of '>' and then "From " gets one more
// '>' in front, so that no line of a message can pass for a separator, and a reader takes one '>' off each
// such line to get the message back; plain mbox (mboxo) quotes only "From " itself and cannot be undone.
//
// Lines end in LF, as in every mbox on a Unix system (mutt, mailx and Thunderbird expect it); a message
// renders with CRLF line ends (RFC 5322), so CRLF becomes LF on the way in and LF becomes CRLF on the way out.
// The messages the composer renders have no other line breaks, so this is exact for them.

// Message is one message of an mbox.
type Message struct {
	Sender    string    // the envelope sender of the separator line
	Date      time.Time // the time of the separator line: when the message was written, in UTC to the second
	MessageID string    // the Message-ID header, with its angle brackets
	Reference string    // the record the message is about: the left part of a seald Message-ID
	Raw       []byte    // the message as rendered, with CRLF line ends
}

// mboxEntry renders one message as it is appended to an mbox: separator line, quoted lines, empty line.
func mboxEntry(sender string, date time.Time, msg []byte) []byte {
	if sender == "" || strings.ContainsAny(sender, " \t\r\n") {
		sender = "MAILER-DAEMON" // the separator line's sender must be one word
	}
	var b bytes.Buffer
	b.Grow(len(msg) + len(msg)/64 + 64)
	b.WriteString("From ")
	b.WriteString(sender)
	b.WriteByte(' ')
	b.WriteString(date.UTC().Format(time.ANSIC))
	b.WriteByte('\n')
	for len(msg) > 0 {
		line := msg
		if i := bytes.IndexByte(msg, '\n'); i >= 0 {
			line, msg = msg[:i+1], msg[i+1:]
		} else {
			msg = nil
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if isQuotedFrom(line) {
			b.WriteByte('>')
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// isQuotedFrom tells whether line is ">*From ": a separator line preceded by any number of '>'.
func isQuotedFrom(line []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(line, ">"), []byte("From "))
}

// ReadMbox splits an mboxrd mailbox into its messages and undoes the quoting and the line ends (see above).
// Text before the first separator line is an error, as is a separator line it cannot read.
func ReadMbox(data []byte) ([]Message, error) {
	var msgs []Message
	var cur *Message
	var body bytes.Buffer
	flush := func() {
		if cur == nil {
			return
		}
		raw := body.Bytes()
		// The empty line that ends each message in the mbox is not part of it.
		raw = bytes.TrimSuffix(raw, []byte("\r\n"))
		cur.Raw = append([]byte(nil), raw...)
		if m, err := mail.ReadMessage(bytes.NewReader(cur.Raw)); err == nil {
			cur.MessageID = strings.TrimSpace(m.Header.Get("Message-Id"))
			cur.Reference = referenceOf(cur.MessageID)
		}
		msgs = append(msgs, *cur)
		body.Reset()
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if bytes.HasPrefix(line, []byte("From ")) {
			flush()
			sender, date, err := parseSeparator(string(line))
			if err != nil {
				return nil, fmt.Errorf("mail: mbox line %d: %w", n, err)
			}
			cur = &Message{Sender: sender, Date: date}
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("mail: mbox line %d: text before the first \"From \" line", n)
		}
		if bytes.HasPrefix(line, []byte(">")) && isQuotedFrom(line) {
			line = line[1:]
		}
		body.Write(line)
		body.WriteString("\r\n")
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("mail: mbox: %w", err)
	}
	flush()
	return msgs, nil
}

// parseSeparator reads "From sender Mon Jan  2 15:04:05 2006".
func parseSeparator(line string) (string, time.Time, error) {
	rest := strings.TrimPrefix(line, "From ")
	sender, date, ok := strings.Cut(rest, " ")
	if !ok || sender == "" {
		return "", time.Time{}, fmt.Errorf("separator line %q has no sender and date", line)
	}
	t, err := time.Parse(time.ANSIC, strings.TrimSpace(date))
	if err != nil {
		return "", time.Time{}, fmt.Errorf("separator line %q: %w", line, err)
	}
	return sender, t, nil
}

// referenceOf is the record reference of a seald Message-ID (<reference@host>), or "".
func referenceOf(messageID string) string {
	id := strings.TrimSuffix(strings.TrimPrefix(messageID, "<"), ">")
	ref, _, ok := strings.Cut(id, "@")
	if !ok || checkReference(ref) != nil {
		return ""
	}
	return ref
}
