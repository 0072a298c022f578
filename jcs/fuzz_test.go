package jcs_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

	"seald.dev/seald/jcs"
)

// FuzzCanonicalize checks, on any input: no panic; an error is a *jcs.Error pointing into the input; whatever
// encoding/json rejects is rejected; and an accepted input gives valid UTF-8 JSON that is its own canonical
// form and that encoding/json reads as the same value as the input. The seed corpus is in
// testdata/fuzz/FuzzCanonicalize.
func FuzzCanonicalize(f *testing.F) {
	f.Add([]byte(rfcSample))
	f.Add(jcs.Sample(512))
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := jcs.Canonicalize(src)
		if err != nil {
			var e *jcs.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v", err, err)
			}
			if e.Offset < 0 || e.Offset > len(src) {
				t.Fatalf("offset %d outside the input of %d bytes: %v", e.Offset, len(src), err)
			}
			return
		}
		if !json.Valid(src) {
			t.Fatalf("accepted what encoding/json rejects: %q -> %q", src, out)
		}
		if !json.Valid(out) || !utf8.Valid(out) {
			t.Fatalf("output is not valid UTF-8 JSON: %q", out)
		}
		again, err := jcs.Canonicalize(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", src, out, again, err)
		}
		var a, b any
		if err := json.Unmarshal(src, &a); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("encoding/json on output: %v", err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("value changed: %q (%#v) -> %q (%#v)", src, a, out, b)
		}
	})
}
