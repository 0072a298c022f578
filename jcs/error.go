package jcs

import (
	"fmt"
	"strconv"
	"unicode"
)

func (c *canon) errorf(off int, format string, args ...any) *Error {
	return &Error{Offset: off, Path: c.path(), Msg: fmt.Sprintf(format, args...)}
}

// path names the value being read when the error happened, from the frames still open: `.name` for a member
// whose name reads like an identifier, `["a b"]` for any other, `[3]` for an array element.
func (c *canon) path() string {
	b := []byte(c.root)
	var name []byte
	for _, f := range c.frames[:c.depth] {
		if f.array {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(f.index), 10)
			b = append(b, ']')
			continue
		}
		if f.keyStart < 0 {
			continue // no member name read yet
		}
		name = unescape(name[:0], c.src[f.keyStart:f.keyEnd])
		if isIdentifier(name) {
			if len(b) > 0 {
				b = append(b, '.')
			}
			b = append(b, name...)
		} else {
			b = append(b, '[')
			b = append(b, quoteName(name)...)
			b = append(b, ']')
		}
	}
	return string(b)
}

func isIdentifier(s []byte) bool {
	for i, r := range string(s) {
		switch {
		case r == '_' || r == '$' || unicode.IsLetter(r):
		case i > 0 && unicode.IsDigit(r):
		default:
			return false
		}
	}
	return len(s) > 0
}

// quoteName quotes a member name for a message, escaping what would not print.
func quoteName(s []byte) string { return strconv.Quote(string(s)) }

// describe names the byte found where something else was expected.
func describe(b byte) string {
	if b >= 0x20 && b < 0x7F {
		return "character '" + string(rune(b)) + "'"
	}
	return fmt.Sprintf("byte 0x%02x", b)
}

// quoteEscape shows an escape sequence as written, in quotes.
func quoteEscape(s []byte) string {
	for _, b := range s {
		if b < 0x20 || b >= 0x7F {
			return strconv.Quote(string(s))
		}
	}
	return "'" + string(s) + "'"
}

// clip shortens a long literal for a message.
func clip(s []byte) string {
	if len(s) > 40 {
		return string(s[:40]) + "..."
	}
	return string(s)
}
