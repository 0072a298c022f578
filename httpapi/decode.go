package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	"seald.dev/seald"
)

// body is a decoded JSON object request body: its members, still raw, so that each can be checked for its
// type with a message that names it. Unknown members are ignored.
type body map[string]json.RawMessage

// decode is the one request decoder: it checks the content type (415), reads at most limit bytes (413),
// and parses a JSON object (400), with messages that say what is wrong.
func decode(r *http.Request, limit int64) (body, error) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil, seald.Errorf(seald.EUNSUPPORTED, "Content-Type must be application/json")
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return nil, seald.Errorf(seald.EUNSUPPORTED, "Content-Type must be application/json, not %q", ct)
	}
	if cs, ok := params["charset"]; ok && !equalFold(cs, "utf-8") {
		return nil, seald.Errorf(seald.EUNSUPPORTED, "the JSON body must be UTF-8, not %q", cs)
	}
	tooLarge := seald.Errorf(seald.ETOOLARGE, "the request body is larger than %d bytes", limit)
	if r.ContentLength > limit {
		// Refused before reading: a client that sent Expect: 100-continue is not invited to send it.
		return nil, tooLarge
	}
	raw, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge
		}
		// The read error names the sockets; the client needs only to know its body did not arrive whole.
		return nil, seald.Errorf(seald.EINVALID, "the request body could not be read to its end")
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, seald.Errorf(seald.EINVALID, "the request body is empty; a JSON object is required")
	}
	if raw[0] != '{' {
		return nil, seald.Errorf(seald.EINVALID, "the request body must be a JSON object")
	}
	if depth(raw) > MaxDepth {
		return nil, seald.Errorf(seald.EINVALID, "the JSON body nests deeper than %d levels", MaxDepth)
	}
	return members(raw)
}

// members splits the body object into its members. A member given twice is refused rather than the last
// one winning (a proxy or a second parser may read the first), and so is anything after the object. The
// members' own contents are checked where they are read: data by the canonicalizer, which refuses
// duplicate names at any depth, the others by their type.
func members(raw []byte) (body, error) {
	malformed := func(err error) error {
		return seald.Errorf(seald.EINVALID, "malformed JSON: %s", jsonProblem(err))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // the opening brace, checked by decode
		return nil, malformed(err)
	}
	b := body{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, malformed(err)
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, malformed(err)
		}
		if _, dup := b[name]; dup {
			return nil, seald.Errorf(seald.EINVALID, "the member %q is given more than once", name)
		}
		b[name] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, malformed(err)
	}
	if rest := bytes.TrimSpace(raw[dec.InputOffset():]); len(rest) > 0 {
		return nil, seald.Errorf(seald.EINVALID, "malformed JSON: data after the object")
	}
	return b, nil
}

// MaxDepth is the deepest nesting of arrays and objects a request body may have: the body object holding a
// data member nested as deep as the canonicalizer takes (jcs.MaxDepth, 128). encoding/json alone would
// accept 10,000 levels in members that are only checked for their type later.
const MaxDepth = 129

// depth returns the deepest nesting of arrays and objects in a JSON text, skipping strings. It is written by
// hand because it must run before any decoder does: one pass, no allocation, whatever the text holds.
func depth(b []byte) int {
	d, deepest := 0, 0
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			d++
			deepest = max(deepest, d)
		case ']', '}':
			d--
		}
	}
	return deepest
}

func jsonProblem(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	return err.Error()
}

func equalFold(a, b string) bool { return bytes.EqualFold([]byte(a), []byte(b)) }

func isNull(v json.RawMessage) bool { return v == nil || string(v) == "null" }

// object returns the raw JSON of a required object member.
func (b body) object(name string) ([]byte, error) {
	v, ok := b[name]
	if !ok || isNull(v) {
		return nil, seald.Errorf(seald.EINVALID, "%s is required", name)
	}
	if v[0] != '{' {
		return nil, seald.Errorf(seald.EINVALID, "%s must be a JSON object", name)
	}
	return v, nil
}

// str returns an optional string member ("" when absent or null).
func (b body) str(name string) (string, bool, error) {
	v, ok := b[name]
	if !ok || isNull(v) {
		return "", false, nil
	}
	var s string
	if v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return "", false, seald.Errorf(seald.EINVALID, "%s must be a string", name)
	}
	return s, true, nil
}

// requiredStr returns a string member that must be present and not empty.
func (b body) requiredStr(name string) (string, error) {
	v, _, err := b.str(name)
	if err == nil && v == "" {
		err = seald.Errorf(seald.EINVALID, "%s is required", name)
	}
	return v, err
}

// flag returns an optional boolean member given as true, false, 1 or 0 (the seed's is_html is an integer
// flag; booleans are accepted too).
func (b body) flag(name string) (bool, error) {
	v, ok := b[name]
	if !ok || isNull(v) {
		return false, nil
	}
	switch string(v) {
	case "1", "true":
		return true, nil
	case "0", "false":
		return false, nil
	}
	return false, seald.Errorf(seald.EINVALID, "%s must be 0, 1, true or false", name)
}

// only refuses a member not in names, for operations that must not do something other than what the caller
// meant (a misspelt member would be silently dropped): EINVALID naming the member and the known ones.
func (b body) only(names ...string) error {
	for name := range b {
		if !slices.Contains(names, name) {
			return seald.Errorf(seald.EINVALID, "unknown member %q: give %s", name, strings.Join(names, ", "))
		}
	}
	return nil
}
