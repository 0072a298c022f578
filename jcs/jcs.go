// Package jcs turns JSON text into its RFC 8785 (JSON Canonicalization Scheme) form, the byte string that
// seald hashes: two clients that send the same data with different key order, white space or number spelling
// must get the same hash, and data that two parsers could read differently (duplicate names, lone surrogates,
// numbers beyond a double) must be refused rather than hashed.
//
// It works in one pass over the raw bytes, writing the canonical form as it reads and reordering an object's
// members in place once the object is complete, so it never builds a tree of values.
//
// What it refuses, each with an *Error naming the value: invalid JSON, trailing text after the value, duplicate
// member names (compared after unescaping), lone surrogates in \u escapes, invalid UTF-8, nesting deeper than
// MaxDepth, and numbers that overflow a double (1e400). What it accepts as ECMAScript's JSON.parse would: a
// number too small for a double becomes the nearest double, 0 at worst (1e-400 is 0), and integers beyond 2^53
// round like any other number (9007199254740993 becomes 9007199254740992). CanonicalizeIJSON, which seald
// seals with, refuses such an integer literal instead: there an integer must come out of canonicalization as the
// value it went in, while a literal with a fraction or an exponent is hashed as RFC 8785 says.
package jcs

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"sync"
	"unsafe"
)

// MaxDepth is the deepest nesting of arrays and objects accepted. It bounds the recursion (and so the stack
// an attacker can make us use) far above anything a real record needs.
const MaxDepth = 128

// Error says why a text has no canonical form: what is wrong (Msg), where in the input (Offset, in bytes from
// the start of src) and in which value (Path, such as `data.items[3].name`), so that an API caller can fix it.
type Error struct {
	Offset int
	Path   string
	Msg    string
}

// Error puts the path first, `data.a[2]: duplicate member name "x"`, so that the message reads as an API
// caller's validation error.
func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Canonicalize returns the canonical form of the one JSON value in src. It is CanonicalizeNamed with no root
// name, so paths in errors start at the first member name or index.
func Canonicalize(src []byte) ([]byte, error) {
	return CanonicalizeNamed(src, "")
}

// CanonicalizeNamed is Canonicalize for a value that the caller knows by a name: errors then carry paths like
// `data.items[3]` that point into the caller's own document.
func CanonicalizeNamed(src []byte, root string) ([]byte, error) {
	out, err := appendCanonical(make([]byte, 0, len(src)+16), src, root)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CanonicalizeIJSON is CanonicalizeNamed that also refuses what RFC 7493 (I-JSON) says not to send: an integer
// literal (no fraction, no exponent) that no double holds and that is not itself the canonical form
// (9007199254740993 would become ...992, and two different texts would share a hash), and Unicode
// noncharacters. Every literal with a fraction or an exponent is hashed as RFC 8785 says, as the double it
// rounds to: 333333333.33333329 (the RFC's own sample) is 333333333.3333333, 0.10000000000000001 (how %.17g
// prints 0.1) is 0.1, 1e-400 is 0. Every integer a double holds or that is its own canonical form (2^53,
// 1152921504606846976, -333333333333333400) is accepted. seald seals data this way; Canonicalize stays plain
// RFC 8785.
func CanonicalizeIJSON(src []byte, root string) ([]byte, error) {
	c := canonPool.Get().(*canon)
	c.ijson = true
	out, err := c.run(make([]byte, 0, len(src)+16), src, root)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AppendCanonical appends the canonical form of src to dst, so that a caller with a buffer of its own pays for
// no allocation. dst must not overlap src. On error it returns dst with its original length.
func AppendCanonical(dst, src []byte) ([]byte, error) {
	return appendCanonical(dst, src, "")
}

// Hash returns the canonical form of src and its SHA-256, the digest seald publishes as a record's hash.
func Hash(src []byte) (canonical []byte, sum [32]byte, err error) {
	canonical, err = Canonicalize(src)
	if err != nil {
		return nil, sum, err
	}
	return canonical, sha256.Sum256(canonical), nil
}

// Sum returns the SHA-256 of the canonical form of src without keeping that form: the canonical bytes live in a
// pooled buffer, so hashing many records allocates next to nothing.
func Sum(src []byte) (sum [32]byte, err error) {
	return SumNamed(src, "")
}

// SumNamed is Sum with the root name used in error paths, as in CanonicalizeNamed.
func SumNamed(src []byte, root string) (sum [32]byte, err error) {
	bp := outPool.Get().(*[]byte)
	out, err := appendCanonical((*bp)[:0], src, root)
	if err == nil {
		sum = sha256.Sum256(out)
	}
	if cap(out) <= maxPooled {
		*bp = out[:0]
		outPool.Put(bp)
	}
	return sum, err
}

// maxPooled keeps one huge input from pinning its buffers in the pools for the life of the process.
const maxPooled = 4 << 20

var outPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

var canonPool = sync.Pool{New: func() any { return new(canon) }}

func appendCanonical(dst, src []byte, root string) ([]byte, error) {
	return canonPool.Get().(*canon).run(dst, src, root)
}

// run canonicalizes src onto dst and gives c back to the pool.
func (c *canon) run(dst, src []byte, root string) ([]byte, error) {
	c.src, c.out, c.pos, c.root = src, dst, 0, root
	err := c.document()
	out := c.out
	c.ijson = false
	c.release()
	if err != nil {
		return dst, err
	}
	return out, nil
}

// member is one name/value pair of an object being read: its unescaped name for sorting, the span of its
// canonical text in the output, and where its name starts in src for errors.
type member struct {
	prefix     uint64 // the first eight bytes of key, as sortPrefix makes them
	key        []byte
	start, end int
	srcOff     int
}

// frame is one level of nesting, kept only so that an error can say where it happened.
type frame struct {
	array            bool
	index            int
	keyStart, keyEnd int // the raw name (between its quotes) in src of the member being read
}

// canon is the state of one canonicalization; pooled so that its stacks and scratch buffers are reused.
type canon struct {
	ijson   bool // refuse what I-JSON says not to send (CanonicalizeIJSON)
	src     []byte
	out     []byte
	pos     int
	root    string
	depth   int
	frames  [MaxDepth]frame
	members []member // members of every object still open, innermost last
	used    int      // the most members held at once during this call, for release
	arena   []byte   // unescaped names that contained escapes; append-only during one call
	scratch []byte   // a copy of an object's text while its members are reordered
	order   []sortEntry
}

func (c *canon) release() {
	c.src, c.out, c.root = nil, nil, ""
	clear(c.members[:max(c.used, len(c.members))]) // drop references into the caller's src
	c.members, c.used = c.members[:0], 0
	c.arena = c.arena[:0]
	c.scratch = c.scratch[:0]
	c.order = c.order[:0]
	if cap(c.members)*int(unsafe.Sizeof(member{})) > maxPooled ||
		cap(c.order)*int(unsafe.Sizeof(sortEntry{})) > maxPooled ||
		cap(c.arena) > maxPooled || cap(c.scratch) > maxPooled {
		return
	}
	canonPool.Put(c)
}

func (c *canon) document() error {
	c.depth = 0
	c.skipSpace()
	if c.pos >= len(c.src) {
		return c.errorf(c.pos, "unexpected end of input, expecting a value")
	}
	if err := c.value(); err != nil {
		return err
	}
	c.skipSpace()
	if c.pos < len(c.src) {
		return c.errorf(c.pos, "unexpected %s after the top-level value", describe(c.src[c.pos]))
	}
	return nil
}

func (c *canon) skipSpace() {
	for c.pos < len(c.src) {
		switch c.src[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

// value reads one value at c.pos (white space already skipped) and writes its canonical form.
func (c *canon) value() error {
	if c.pos >= len(c.src) {
		return c.errorf(c.pos, "unexpected end of input, expecting a value")
	}
	switch b := c.src[c.pos]; b {
	case '{':
		return c.object()
	case '[':
		return c.array()
	case '"':
		_, err := c.str(false)
		return err
	case 't':
		return c.literal("true")
	case 'f':
		return c.literal("false")
	case 'n':
		return c.literal("null")
	default:
		if b == '-' || (b >= '0' && b <= '9') {
			return c.number()
		}
		return c.errorf(c.pos, "unexpected %s, expecting a value", describe(b))
	}
}

func (c *canon) literal(word string) error {
	end := c.pos + len(word)
	if end > len(c.src) || string(c.src[c.pos:end]) != word {
		return c.errorf(c.pos, "invalid literal, expecting %s", word)
	}
	c.out = append(c.out, word...)
	c.pos = end
	return nil
}

func (c *canon) push(array bool) error {
	if c.depth >= MaxDepth {
		return c.errorf(c.pos, "nesting deeper than %d levels", MaxDepth)
	}
	c.frames[c.depth] = frame{array: array, keyStart: -1}
	c.depth++
	c.pos++ // the opening bracket
	return nil
}

func (c *canon) array() error {
	if err := c.push(true); err != nil {
		return err
	}
	c.out = append(c.out, '[')
	c.skipSpace()
	if c.pos < len(c.src) && c.src[c.pos] == ']' {
		c.pos++
		c.depth--
		c.out = append(c.out, ']')
		return nil
	}
	f := &c.frames[c.depth-1]
	for {
		c.skipSpace()
		if err := c.value(); err != nil {
			return err
		}
		c.skipSpace()
		if c.pos >= len(c.src) {
			return c.errorf(c.pos, "unexpected end of input in array")
		}
		switch c.src[c.pos] {
		case ',':
			c.pos++
			c.out = append(c.out, ',')
			f.index++
		case ']':
			c.pos++
			c.depth--
			c.out = append(c.out, ']')
			return nil
		default:
			return c.errorf(c.pos, "unexpected %s in array, expecting ',' or ']'", describe(c.src[c.pos]))
		}
	}
}

func (c *canon) object() error {
	if err := c.push(false); err != nil {
		return err
	}
	c.out = append(c.out, '{')
	body := len(c.out)
	base := len(c.members)
	sorted := true
	c.skipSpace()
	if c.pos < len(c.src) && c.src[c.pos] == '}' {
		c.pos++
		c.depth--
		c.out = append(c.out, '}')
		return nil
	}
	f := &c.frames[c.depth-1]
	for {
		f.keyStart = -1
		if c.pos >= len(c.src) {
			return c.errorf(c.pos, "unexpected end of input in object, expecting a member name")
		}
		if c.src[c.pos] != '"' {
			return c.errorf(c.pos, "unexpected %s in object, expecting a member name", describe(c.src[c.pos]))
		}
		keyOff := c.pos
		start := len(c.out)
		key, err := c.str(true)
		if err != nil {
			return err
		}
		f.keyStart, f.keyEnd = keyOff+1, c.pos-1
		prefix := sortPrefix(key)
		if sorted && len(c.members) > base && compareMembers(&c.members[len(c.members)-1], prefix, key) >= 0 {
			sorted = false
		}
		c.skipSpace()
		if c.pos >= len(c.src) || c.src[c.pos] != ':' {
			if c.pos >= len(c.src) {
				return c.errorf(c.pos, "unexpected end of input in object, expecting ':'")
			}
			return c.errorf(c.pos, "unexpected %s after member name, expecting ':'", describe(c.src[c.pos]))
		}
		c.pos++
		c.out = append(c.out, ':')
		c.skipSpace()
		if err := c.value(); err != nil {
			return err
		}
		c.members = append(c.members, member{prefix: prefix, key: key, start: start, end: len(c.out), srcOff: keyOff})
		c.skipSpace()
		if c.pos >= len(c.src) {
			return c.errorf(c.pos, "unexpected end of input in object")
		}
		switch c.src[c.pos] {
		case ',':
			c.pos++
			c.out = append(c.out, ',')
			c.skipSpace()
			continue
		case '}':
			c.pos++
		default:
			return c.errorf(c.pos, "unexpected %s in object, expecting ',' or '}'", describe(c.src[c.pos]))
		}
		break
	}
	if !sorted {
		if err := c.reorder(body, base); err != nil {
			return err
		}
	}
	c.used = max(c.used, len(c.members))
	c.members = c.members[:base]
	c.depth--
	c.out = append(c.out, '}')
	return nil
}

// reorder sorts the members of the object whose text starts at c.out[body] (just after its '{'), rewriting
// that text in place, and refuses duplicate names, which sort next to each other.
func (c *canon) reorder(body, base int) error {
	ms := c.members[base:]
	order := c.order[:0]
	for i := range ms {
		order = append(order, sortEntry{prefix: ms[i].prefix, i: i})
	}
	c.order = order
	sortEntries(order, ms)
	for k := 1; k < len(order); k++ {
		a, b := &ms[order[k-1].i], &ms[order[k].i]
		if a.prefix == b.prefix && compareUTF16(a.key, b.key) == 0 {
			c.depth-- // the path names the object, not the member
			return c.errorf(max(a.srcOff, b.srcOff), "duplicate member name %s", quoteName(b.key))
		}
	}
	c.scratch = append(c.scratch[:0], c.out[body:]...)
	w := body
	for k, e := range order {
		if k > 0 {
			c.out[w] = ','
			w++
		}
		m := &ms[e.i]
		w += copy(c.out[w:], c.scratch[m.start-body:m.end-body])
	}
	return nil
}

// sortEntry is what reorder sorts: small, so that sorting moves little memory.
type sortEntry struct {
	prefix uint64
	i      int // index into the object's members
}

func sortEntries(order []sortEntry, ms []member) {
	cmp := func(a, b sortEntry) int {
		switch {
		case a.prefix < b.prefix:
			return -1
		case a.prefix > b.prefix:
			return 1
		}
		return compareUTF16(ms[a.i].key, ms[b.i].key)
	}
	// Objects are usually small; insertion sort beats a general sort there.
	if len(order) > 24 {
		slices.SortFunc(order, cmp)
		return
	}
	for i := 1; i < len(order); i++ {
		e := order[i]
		j := i
		for ; j > 0 && (order[j-1].prefix > e.prefix || order[j-1].prefix == e.prefix && cmp(order[j-1], e) > 0); j-- {
			order[j] = order[j-1]
		}
		order[j] = e
	}
}

// compareMembers orders member a against the name key whose sortPrefix is prefix. Distinct prefixes decide at
// once; equal ones (names that share eight bytes, or are shorter) need the whole names.
func compareMembers(a *member, prefix uint64, key []byte) int {
	switch {
	case a.prefix < prefix:
		return -1
	case a.prefix > prefix:
		return 1
	}
	return compareUTF16(a.key, key)
}

// sortPrefix packs the first eight bytes of a name, zero-padded, into an integer whose order is the RFC 8785
// order of the names whenever two prefixes differ. UTF-8 byte order is code point order, which agrees with
// UTF-16 code unit order except between U+E000..U+FFFF (lead bytes EE, EF) and the supplementary planes (lead
// bytes F0..F4, surrogates D800..DFFF in UTF-16). Mapping EE, EF to F3, F4 and F0..F4 to EE..F2 fixes that:
// those bytes only ever lead a sequence, and the first byte where two names differ is a lead in both or a
// continuation in both.
func sortPrefix(key []byte) uint64 {
	var p uint64
	if len(key) >= 8 {
		p = binary.BigEndian.Uint64(key)
	} else {
		for i, b := range key {
			p |= uint64(b) << (56 - 8*i)
		}
	}
	if p&msb == 0 {
		return p // ASCII
	}
	var q uint64
	for i := 56; i >= 0; i -= 8 {
		q |= uint64(utf16Order[byte(p>>i)]) << i
	}
	return q
}

// utf16Order is the byte mapping of sortPrefix.
var utf16Order = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
	}
	t[0xEE], t[0xEF] = 0xF3, 0xF4
	for b := 0xF0; b <= 0xF4; b++ {
		t[b] = byte(b - 2)
	}
	return t
}()

// compareUTF16 orders two valid UTF-8 strings as RFC 8785 requires: by their UTF-16 code units (see
// sortPrefix for why looking at the first differing byte suffices).
func compareUTF16(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	return int(utf16Order[a[i]]) - int(utf16Order[b[i]])
}
