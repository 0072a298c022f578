package jcs

import (
	"math/big"
	"strconv"
	"unsafe"
)

// number reads the number at c.pos and writes what ECMAScript's Number.prototype.toString gives for the double
// it denotes (RFC 8785 section 3.2.2.3). A number too large for a double (1e400) is an error: it has no
// canonical form. One too small rounds to a double like any other decimal, to 0 at worst (1e-400 is 0), as
// every IEEE 754 parser, JSON.parse included, reads it.
func (c *canon) number() error {
	s := c.src
	start := c.pos
	i := start
	neg := s[i] == '-'
	if neg {
		i++
	}
	intStart := i
	switch {
	case i >= len(s):
		return c.errorf(i, "unexpected end of input in number")
	case s[i] == '0':
		i++
		if i < len(s) && isDigit(s[i]) {
			return c.errorf(start, "invalid number: leading zero")
		}
	case s[i] >= '1' && s[i] <= '9':
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return c.errorf(i, "invalid number: expecting a digit, found %s", describe(s[i]))
	}
	intEnd := i
	end := intEnd // of the digits, integer and fraction
	if i < len(s) && s[i] == '.' {
		i++
		fracStart := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == fracStart {
			return c.errorf(i, "invalid number: expecting a digit after '.'")
		}
		end = i
	}
	exp, hasExp := 0, false
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		hasExp = true
		i++
		expNeg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			expNeg = s[i] == '-'
			i++
		}
		expStart := i
		for i < len(s) && isDigit(s[i]) {
			// Beyond 10^8 the literal would need more digits than any request body holds to denote a finite,
			// nonzero double, so the exponent stops growing there and stays exact wherever it matters.
			if exp < 100_000_000 {
				exp = exp*10 + int(s[i]-'0')
			}
			i++
		}
		if i == expStart {
			return c.errorf(i, "invalid number: expecting a digit in the exponent")
		}
		if expNeg {
			exp = -exp
		}
	}
	c.pos = i

	// An integer of up to 15 digits is an exact double below 1e21: its own digits are its canonical form.
	if !hasExp && end == intEnd && intEnd-intStart <= 15 {
		if intEnd-intStart == 1 && s[intStart] == '0' { // 0 and -0
			c.out = append(c.out, '0')
			return nil
		}
		c.out = append(c.out, s[start:i]...)
		return nil
	}

	// The significant digits, without leading or trailing zeros: the value is 0.digits × 10^n.
	var buf [24]byte
	count, last, lead := 0, 0, 0
	for j := intStart; j < end; j++ {
		d := s[j]
		switch {
		case d == '.':
			continue
		case count == 0 && d == '0':
			lead++
			continue
		case count < len(buf):
			buf[count] = d
		}
		count++
		if d != '0' {
			last = count
		}
	}
	if last == 0 {
		c.out = append(c.out, '0') // every spelling of zero, signed or not
		return nil
	}
	n := intEnd - intStart - lead + exp
	// A decimal of at most 15 significant digits comes back unchanged from the nearest double (DBL_DIG is 15),
	// so no shorter or closer spelling exists: its digits are the shortest round trip ECMAScript asks for.
	// Far from the subnormal and overflow ranges this needs no float conversion at all.
	if last <= 15 && n > -300 && n < 300 {
		c.out = appendES6(c.out, neg, buf[:last], n)
		return nil
	}
	return c.slowNumber(start, i, buf[:min(last, len(buf))], last, n, !hasExp && end == intEnd)
}

// slowNumber rounds the literal to a double and takes strconv's shortest round-trip digits, which are the
// ones ECMAScript specifies (fewest digits, then closest to the value). The literal's own significant digits
// (d, of which there are count, the value being 0.d × 10^n) let I-JSON refuse an integer literal (integer:
// no fraction, no exponent) whose canonical form is another value.
func (c *canon) slowNumber(start, end int, d []byte, count, n int, integer bool) error {
	lit := c.src[start:end]
	f, err := strconv.ParseFloat(unsafe.String(&lit[0], len(lit)), 64)
	if err != nil { // the grammar is checked, so this is overflow to ±Inf
		return c.errorf(start, "number %s is not a finite IEEE 754 double", clip(lit))
	}
	mark := len(c.out)
	if f == 0 { // a fraction or an exponent below the smallest double (an integer literal is 0 or at least 1)
		c.out = append(c.out, '0')
		return nil
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // [-]d[.ddd]e±dd
	neg := e[0] == '-'
	if neg {
		e = e[1:]
	}
	var digits [20]byte
	k, j := 0, 0
	for ; e[j] != 'e'; j++ {
		if e[j] != '.' {
			digits[k] = e[j]
			k++
		}
	}
	x := 0
	for _, d := range e[j+2:] {
		x = x*10 + int(d-'0')
	}
	if e[j+1] == '-' {
		x = -x
	}
	c.out = appendES6(c.out, neg, digits[:k], x+1)
	// RFC 8785 hashes every finite literal with a fraction or an exponent as the double it rounds to: a
	// client printing %.17g sends 0.10000000000000001 for 0.1, and the RFC's own sample holds
	// 333333333.33333329. Only a plain integer literal is held to its value (RFC 7493): clients that mean
	// 9007199254740993 send those digits, and sealing ...992 would give two texts one hash. It is refused when
	// neither the double (2^60 spelled in full) nor the canonical form (-333333333333333400, as JSON.stringify
	// writes) is its value. Both canonical and literal are 0.digits × 10^n with no leading or trailing zeros,
	// so the same value is the same digits and the same n, decided with no float arithmetic.
	if c.ijson && integer && (count != k || n != x+1 || string(d) != string(digits[:k])) && !holds(f, lit) {
		return c.changed(start, lit, mark)
	}
	return nil
}

// holds reports whether the double f is exactly the value of the integer literal lit: 2^60 spelled in full
// (1152921504606846976) is a double, though its canonical form is 1152921504606847000. Only reached for an
// integer literal of 16 or more digits whose canonical form differs, so math/big's cost is paid rarely.
func holds(f float64, lit []byte) bool {
	want, ok := new(big.Int).SetString(string(lit), 10)
	if !ok {
		return false
	}
	got, acc := new(big.Float).SetFloat64(f).Int(nil)
	return acc == big.Exact && got.Cmp(want) == 0
}

// changed refuses, for I-JSON, an integer literal whose canonical form (c.out from mark) denotes another value
// than it does: 9007199254740993 would be sealed as 9007199254740992, and two different texts would share a
// hash. A number that an IEEE 754 double holds, as every JSON.stringify writes it, is never refused.
func (c *canon) changed(start int, lit []byte, mark int) error {
	return c.errorf(start, "number %s would become %s in its RFC 8785 canonical form, a different value: RFC 7493 (I-JSON) "+
		"says to send only numbers an IEEE 754 double holds; send it as a string to keep it exact",
		clip(lit), c.out[mark:])
}

// appendES6 writes the number 0.d × 10^n (d without leading or trailing zeros, n as in ECMAScript's
// Number::toString) in the form that algorithm chooses: plain digits below 1e21 and down to 1e-6, exponent
// notation outside.
func appendES6(out []byte, neg bool, d []byte, n int) []byte {
	if neg {
		out = append(out, '-')
	}
	k := len(d)
	switch {
	case k <= n && n <= 21:
		out = append(out, d...)
		for ; k < n; k++ {
			out = append(out, '0')
		}
	case 0 < n && n <= 21:
		out = append(out, d[:n]...)
		out = append(out, '.')
		out = append(out, d[n:]...)
	case -6 < n && n <= 0:
		out = append(out, '0', '.')
		for z := n; z < 0; z++ {
			out = append(out, '0')
		}
		out = append(out, d...)
	default:
		out = append(out, d[0])
		if k > 1 {
			out = append(out, '.')
			out = append(out, d[1:]...)
		}
		out = append(out, 'e')
		x := n - 1
		if x < 0 {
			out = append(out, '-')
			x = -x
		} else {
			out = append(out, '+')
		}
		out = strconv.AppendInt(out, int64(x), 10)
	}
	return out
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
