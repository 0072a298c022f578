package jcs_test

import (
	"errors"
	"strings"
	"testing"

	"seald.dev/seald/jcs"
)

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		name, in   string
		path, msg  string // msg: a part of Msg that must be there
		offset     int    // -1: not checked
		errorsText string // the whole Error() when set
	}{
		{"duplicate", `{"a":1,"b":{"x":1,"y":2,"x":3}}`, "data.b", `duplicate member name "x"`, 24,
			`data.b: duplicate member name "x"`},
		{"duplicate after unescaping", `{"a":1,"\u0061":2}`, "data", `duplicate member name "a"`, 7, ""},
		{"duplicate in array", `{"a":[0,1,{"k":1,"k":2}]}`, "data.a[2]", `duplicate member name "k"`, 17,
			`data.a[2]: duplicate member name "k"`},
		{"duplicate among many", `{"m":1,"l":1,"k":1,"j":1,"i":1,"h":1,"g":1,"f":1,"e":1,"d":1,"c":1,"b":1,"a":1,` +
			`"z":1,"y":1,"x":1,"w":1,"v":1,"u":1,"t":1,"s":1,"r":1,"q":1,"p":1,"o":1,"n":1,"g":2}`,
			"data", `duplicate member name "g"`, -1, ""},
		{"overflow", `{"items":[1,2,3,{"v":1e400}]}`, "data.items[3].v", "1e400 is not a finite IEEE 754 double", 21,
			"data.items[3].v: number 1e400 is not a finite IEEE 754 double"},
		{"negative overflow", `[-1.8e308]`, "data[0]", "not a finite", 1, ""},
		{"overflow just above max", `[1.7976931348623159e308]`, "data[0]", "not a finite", 1, ""},
		{"lone high surrogate", `{"s":"ab\ud83dcd"}`, "data.s", `lone high surrogate \ud83d`, 8, ""},
		{"high surrogate at end", `["\ud83d"]`, "data[0]", "lone high surrogate", 2, ""},
		{"high then not low", `["\ud83d\u0041"]`, "data[0]", "lone high surrogate", 2, ""},
		{"two highs", `["\ud83d\ud83d"]`, "data[0]", "lone high surrogate", 2, ""},
		{"lone low surrogate", `["x\ude00"]`, "data[0]", `lone low surrogate \ude00`, 3, ""},
		{"invalid UTF-8", "[\"ab\xffcd\"]", "data[0]", "invalid UTF-8", 4, ""},
		{"overlong UTF-8", "[\"\xc0\xaf\"]", "data[0]", "invalid UTF-8", 2, ""},
		{"UTF-8 surrogate", "[\"\xed\xa0\x80\"]", "data[0]", "invalid UTF-8", 2, ""},
		{"truncated UTF-8", "[\"\xe2\x82\"]", "data[0]", "invalid UTF-8", 2, ""},
		{"invalid UTF-8 in long string", "[\"0123456789abcdef0123456789\xf8\"]", "data[0]", "invalid UTF-8", 28, ""},
		{"invalid UTF-8 in name", "{\"a\xff\":1}", "data", "invalid UTF-8", 3, ""},
		{"control character", "[\"a\nb\"]", "data[0]", "unescaped control character U+000A", 3, ""},
		{"control character in long string", "[\"0123456789abcdef\t0123456789\"]", "data[0]", "U+0009", 18, ""},
		{"quote-free long string", "[\"0123456789abcdef0123456789", "data[0]", "end of input in string", 28, ""},
		{"invalid escape", `["\x"]`, "data[0]", `invalid escape '\x'`, 2, ""},
		{"short unicode escape", `["\u12"]`, "data[0]", "four hexadecimal digits", 2, ""},
		{"bad hex", `["\u12G4"]`, "data[0]", "four hexadecimal digits", 2, ""},
		{"unterminated string", `["abc`, "data[0]", "end of input in string", 5, ""},
		{"trailing garbage", `{} x`, "data", "after the top-level value", 3, ""},
		{"two values", `1 2`, "data", "after the top-level value", 2, ""},
		{"trailing comma in object", `{"a":1,}`, "data", "expecting a member name", 7, ""},
		{"trailing comma in array", `[1,]`, "data[1]", "expecting a value", 3, ""},
		{"missing colon", `{"a" 1}`, "data.a", "expecting ':'", 5, ""},
		{"missing comma", `[1 2]`, "data[0]", "expecting ',' or ']'", 3, ""},
		{"single quotes", `{'a':1}`, "data", "expecting a member name", 1, ""},
		{"leading zero", `[01]`, "data[0]", "leading zero", 1, ""},
		{"dot without digits", `[1.]`, "data[0]", "digit after '.'", 3, ""},
		{"leading dot", `[.5]`, "data[0]", "expecting a value", 1, ""},
		{"lone minus", `-`, "data", "end of input in number", 1, ""},
		{"minus letter", `-x`, "data", "expecting a digit", 1, ""},
		{"empty exponent", `1e`, "data", "digit in the exponent", 2, ""},
		{"plus sign", `+1`, "data", "expecting a value", 0, ""},
		{"NaN", `NaN`, "data", "expecting a value", 0, ""},
		{"Infinity", `[Infinity]`, "data[0]", "expecting a value", 1, ""},
		{"bad literal", `[tru]`, "data[0]", "expecting true", 1, ""},
		{"truncated literal", `nul`, "data", "expecting null", 0, ""},
		{"empty", ``, "data", "end of input", 0, ""},
		{"only white space", " \n\t", "data", "end of input", 3, ""},
		{"unclosed object", `{"a":1`, "data.a", "end of input in object", 6, ""},
		{"unclosed array", `[1,2`, "data[1]", "end of input in array", 4, ""},
		{"odd name", `{"a b":{"c":[{"d":1e999}]}}`, `data["a b"].c[0].d`, "not a finite", 18, ""},
		{"escaped name in path", `{"\u00e9t\u00e9":[true,false,x]}`, `data.été[2]`, "expecting a value", 29, ""},
		{"too deep", strings.Repeat("[", jcs.MaxDepth+1) + strings.Repeat("]", jcs.MaxDepth+1),
			"data" + strings.Repeat("[0]", jcs.MaxDepth), "nesting deeper than 128", jcs.MaxDepth, ""},
		{"too deep objects", strings.Repeat(`{"a":`, jcs.MaxDepth+1) + "1" + strings.Repeat("}", jcs.MaxDepth+1),
			"data" + strings.Repeat(".a", jcs.MaxDepth), "nesting deeper than 128", 5 * jcs.MaxDepth, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := jcs.CanonicalizeNamed([]byte(c.in), "data")
			if err == nil {
				t.Fatalf("no error; output %s", out)
			}
			var e *jcs.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not a *jcs.Error", err, err)
			}
			if e.Path != c.path {
				t.Errorf("Path = %q, want %q", e.Path, c.path)
			}
			if !strings.Contains(e.Msg, c.msg) {
				t.Errorf("Msg = %q, want it to contain %q", e.Msg, c.msg)
			}
			if c.offset >= 0 && e.Offset != c.offset {
				t.Errorf("Offset = %d, want %d (%v)", e.Offset, c.offset, err)
			}
			if c.errorsText != "" && err.Error() != c.errorsText {
				t.Errorf("Error() = %q, want %q", err.Error(), c.errorsText)
			}
			// The same input through every entry point fails alike.
			if _, err := jcs.Canonicalize([]byte(c.in)); err == nil {
				t.Error("Canonicalize accepted it")
			}
			if _, _, err := jcs.Hash([]byte(c.in)); err == nil {
				t.Error("Hash accepted it")
			}
			if _, err := jcs.Sum([]byte(c.in)); err == nil {
				t.Error("Sum accepted it")
			}
			dst := []byte("keep")
			got, err := jcs.AppendCanonical(dst, []byte(c.in))
			if err == nil || string(got) != "keep" {
				t.Errorf("AppendCanonical = %q, %v; want the original dst and an error", got, err)
			}
		})
	}
}

func TestErrorWithoutRoot(t *testing.T) {
	_, err := jcs.Canonicalize([]byte(`{"a":[1,{"b":1,"b":2}]}`))
	if err == nil || err.Error() != `a[1]: duplicate member name "b"` {
		t.Errorf("got %v", err)
	}
	_, err = jcs.Canonicalize([]byte(`{"a":1,"a":2}`))
	if err == nil || err.Error() != `duplicate member name "a"` {
		t.Errorf("got %v", err)
	}
}

func TestMaxDepthAccepted(t *testing.T) {
	in := strings.Repeat("[", jcs.MaxDepth) + strings.Repeat("]", jcs.MaxDepth)
	if got := canon(t, in); got != in {
		t.Errorf("got %s", got)
	}
	in = strings.Repeat(`{"a":`, jcs.MaxDepth) + "1" + strings.Repeat("}", jcs.MaxDepth)
	if got := canon(t, in); got != in {
		t.Errorf("got %s", got)
	}
}

func TestAppendCanonical(t *testing.T) {
	out, err := jcs.AppendCanonical([]byte("prefix:"), []byte(`{"b":[1.0],"a":"x"}`))
	if err != nil || string(out) != `prefix:{"a":"x","b":[1]}` {
		t.Errorf("got %q, %v", out, err)
	}
	// An object reordered after a prefix: the spans must be relative to the object, not to dst.
	buf := make([]byte, 0, 64)
	for i := range 3 {
		buf, err = jcs.AppendCanonical(buf, []byte(`{"z":{"y":1,"x":2},"a":0}`))
		if err != nil {
			t.Fatal(i, err)
		}
	}
	if want := strings.Repeat(`{"a":0,"z":{"x":2,"y":1}}`, 3); string(buf) != want {
		t.Errorf("got %s", buf)
	}
}
