package jcs

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// Constants of the eight-bytes-at-a-time scan: lsb has the low bit of every byte set, msb the high bit.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// specialBytes flags (with its high bit) each byte of w that ends a run of literal string text: '"', '\\' or
// a control character. Flags above the first true one may be spurious (borrows), so only the lowest is used.
func specialBytes(w uint64) uint64 {
	q := w ^ (lsb * '"')
	e := w ^ (lsb * '\\')
	return (((q - lsb) &^ q) | ((e - lsb) &^ e) | ((w - lsb*0x20) &^ w)) & msb
}

// str reads the string at c.pos (a '"') and writes its canonical form: the text as UTF-8, with only '"', '\\'
// and control characters escaped. For a member name it also returns the name unescaped, for sorting: a slice
// of src when the name holds no escape (the common case, no copy), else a slice of c.arena.
func (c *canon) str(key bool) ([]byte, error) {
	s := c.src
	start := c.pos + 1
	i := start
	c.out = append(c.out, '"')
	escaped := false
	for {
		run := i
		var hi uint64
		for i+8 <= len(s) {
			w := binary.LittleEndian.Uint64(s[i:])
			hi |= w
			if m := specialBytes(w); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto found
			}
			i += 8
		}
		for i < len(s) {
			b := s[i]
			if b == '"' || b == '\\' || b < 0x20 {
				break
			}
			hi |= uint64(b)
			i++
		}
	found:
		if hi&msb != 0 {
			if !utf8.Valid(s[run:i]) {
				return nil, c.errorf(run+invalidUTF8At(s[run:i]), "invalid UTF-8 in string")
			}
			if c.ijson {
				if k, r := noncharacter(s[run:i]); k >= 0 {
					return nil, c.nonchar(run+k, r)
				}
			}
		}
		c.out = append(c.out, s[run:i]...)
		if i >= len(s) {
			return nil, c.errorf(i, "unexpected end of input in string")
		}
		switch b := s[i]; {
		case b == '"':
			c.out = append(c.out, '"')
			c.pos = i + 1
			if !key {
				return nil, nil
			}
			if !escaped {
				return s[start:i:i], nil
			}
			from := len(c.arena)
			c.arena = unescape(c.arena, s[start:i])
			return c.arena[from:len(c.arena):len(c.arena)], nil
		case b < 0x20:
			return nil, c.errorf(i, "unescaped control character U+%04X in string", b)
		}
		// A backslash.
		escaped = true
		if i+1 >= len(s) {
			return nil, c.errorf(i, "unexpected end of input in string escape")
		}
		switch e := s[i+1]; e {
		case '"':
			c.out = append(c.out, '\\', '"')
		case '\\':
			c.out = append(c.out, '\\', '\\')
		case '/':
			c.out = append(c.out, '/')
		case 'b', 'f', 'n', 'r', 't':
			c.out = append(c.out, '\\', e)
		case 'u':
			r, n, err := c.unicodeEscape(i)
			if err != nil {
				return nil, err
			}
			if c.ijson && isNoncharacter(r) {
				return nil, c.nonchar(i, r)
			}
			c.out = appendRune(c.out, r)
			i += n
			continue
		default:
			return nil, c.errorf(i, "invalid escape %s in string", quoteEscape(s[i:min(i+2, len(s))]))
		}
		i += 2
	}
}

// unicodeEscape reads the \uXXXX escape at s[i], and the low half that must follow a high surrogate. A lone
// surrogate has no Unicode scalar value, so no UTF-8 form and no agreed meaning: it is refused.
func (c *canon) unicodeEscape(i int) (r rune, n int, err error) {
	s := c.src
	r, ok := hex4(s, i+2)
	if !ok {
		esc := quoteEscape(s[i:min(i+6, len(s))])
		return 0, 0, c.errorf(i, "invalid escape %s in string: expecting four hexadecimal digits", esc)
	}
	switch {
	case r >= 0xDC00 && r < 0xE000:
		return 0, 0, c.errorf(i, "lone low surrogate \\u%04x in string", r)
	case r >= 0xD800 && r < 0xDC00:
		if i+7 < len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
			if lo, ok := hex4(s, i+8); ok && lo >= 0xDC00 && lo < 0xE000 {
				return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12, nil
			}
		}
		return 0, 0, c.errorf(i, "lone high surrogate \\u%04x in string", r)
	}
	return r, 6, nil
}

// isNoncharacter reports whether r is one of Unicode's 66 noncharacters (U+FDD0..U+FDEF and the last two code
// points of every plane), which RFC 7493 (I-JSON) says not to send.
func isNoncharacter(r rune) bool {
	return r >= 0xFDD0 && r <= 0xFDEF || r&0xFFFE == 0xFFFE
}

// noncharacter finds the first noncharacter in valid UTF-8 text: its offset and rune, or -1. Only lead bytes
// EF and F0..F4 can begin one, so ASCII and most text is skipped a byte at a time without decoding.
func noncharacter(b []byte) (int, rune) {
	for i := 0; i < len(b); i++ {
		if c := b[i]; c == 0xEF || c >= 0xF0 && c <= 0xF4 {
			if r, _ := utf8.DecodeRune(b[i:]); isNoncharacter(r) {
				return i, r
			}
		}
	}
	return -1, 0
}

func (c *canon) nonchar(off int, r rune) error {
	return c.errorf(off, "the noncharacter U+%04X in a string, which RFC 7493 (I-JSON) says not to send", r)
}

func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, b := range s[i : i+4] {
		var d byte
		switch {
		case b >= '0' && b <= '9':
			d = b - '0'
		case b >= 'a' && b <= 'f':
			d = b - 'a' + 10
		case b >= 'A' && b <= 'F':
			d = b - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

const hexDigits = "0123456789abcdef"

// appendRune writes r as RFC 8785 section 3.2.2.2 wants it inside a string: the two-character escapes where
// JSON has one, \u00xx in lower case for the other control characters, and UTF-8 for everything else.
func appendRune(out []byte, r rune) []byte {
	switch {
	case r == '"' || r == '\\':
		return append(out, '\\', byte(r))
	case r >= 0x20:
		return utf8.AppendRune(out, r)
	}
	switch r {
	case '\b':
		return append(out, '\\', 'b')
	case '\f':
		return append(out, '\\', 'f')
	case '\n':
		return append(out, '\\', 'n')
	case '\r':
		return append(out, '\\', 'r')
	case '\t':
		return append(out, '\\', 't')
	}
	return append(out, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xF])
}

// unescape appends the text of raw, the inside of a string that str has already checked, with its escapes
// decoded: the form in which member names are compared.
func unescape(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		b := raw[i]
		if b != '\\' {
			dst = append(dst, b)
			i++
			continue
		}
		if i+1 >= len(raw) {
			return dst
		}
		switch e := raw[i+1]; e {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(raw, i+2)
			if !ok {
				return dst
			}
			n := 6
			if r >= 0xD800 && r < 0xDC00 {
				if lo, ok := hex4(raw, i+8); ok && i+7 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					n = 12
				}
			}
			dst = utf8.AppendRune(dst, r)
			i += n
			continue
		default: // '"', '\\', '/'
			dst = append(dst, e)
		}
		i += 2
	}
	return dst
}

// invalidUTF8At returns the offset of the first byte of s that does not start a valid UTF-8 sequence.
func invalidUTF8At(s []byte) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(s)
}
