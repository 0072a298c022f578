package jcs_test

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"testing"

	"seald.dev/seald/jcs"
)

// The examples of RFC 8785, transcribed from its text.

// rfcSample is the input of section 3.2.2, escapes as written there.
const rfcSample = `{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`

// rfcSampleBytes is section 3.2.4: the canonical form of rfcSample as UTF-8, in hexadecimal.
const rfcSampleBytes = `
7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72
75 65 2c 66 61 6c 73 65 5d 2c 22 6e 75 6d 62 65 72 73 22 3a
5b 33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31
65 2b 33 30 2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37
5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 5c 75 30 30
30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d`

// rfcSampleText is the canonical form printed in section 3.2.3 (one line here).
const rfcSampleText = `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func canon(t *testing.T, in string) string {
	t.Helper()
	out, err := jcs.Canonicalize([]byte(in))
	if err != nil {
		t.Fatalf("Canonicalize(%q): %v", in, err)
	}
	return string(out)
}

func TestRFCSample(t *testing.T) {
	want := mustHex(t, rfcSampleBytes)
	if got := canon(t, rfcSample); got != string(want) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if string(want) != rfcSampleText {
		t.Errorf("the RFC's bytes and text disagree as transcribed: %s", want)
	}
	canonical, sum, err := jcs.Hash([]byte(rfcSample))
	if err != nil || string(canonical) != string(want) || sum != sha256.Sum256(want) {
		t.Errorf("Hash = %s, %x, %v", canonical, sum, err)
	}
	if s, err := jcs.Sum([]byte(rfcSample)); err != nil || s != sum {
		t.Errorf("Sum = %x, %v; want %x", s, err, sum)
	}
}

// TestRFCSorting is section 3.2.3: names compared as UTF-16 code units, so the emoji (a surrogate pair,
// D83D DE00) sorts before U+FB33 although its code point is larger.
func TestRFCSorting(t *testing.T) {
	in := `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`
	order := []string{"Carriage Return", "One", "Control", "Latin Small Letter O With Diaeresis", "Euro Sign",
		"Emoji: Grinning Face", "Hebrew Letter Dalet With Dagesh"}
	want := `{"\r":"Carriage Return","1":"One","` + "\u0080" + `":"Control","ö":"Latin Small Letter O With Diaeresis",` +
		`"€":"Euro Sign","😀":"Emoji: Grinning Face","` + "\ufb33" + `":"Hebrew Letter Dalet With Dagesh"}`
	got := canon(t, in)
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	last := -1
	for _, v := range order {
		i := strings.Index(got, `"`+v+`"`)
		if i <= last {
			t.Errorf("%q out of the RFC's order in %s", v, got)
		}
		last = i
	}
}

// appendixB is RFC 8785 Appendix B: IEEE 754 bit patterns and their serialization (NaN and Infinity, which
// JSON text cannot spell, are covered by the overflow tests).
var appendixB = []struct{ bits, want string }{
	{"0000000000000000", "0"},
	{"8000000000000000", "0"},
	{"0000000000000001", "5e-324"},
	{"8000000000000001", "-5e-324"},
	{"7fefffffffffffff", "1.7976931348623157e+308"},
	{"ffefffffffffffff", "-1.7976931348623157e+308"},
	{"4340000000000000", "9007199254740992"},
	{"c340000000000000", "-9007199254740992"},
	{"4430000000000000", "295147905179352830000"},
	{"44b52d02c7e14af5", "9.999999999999997e+22"},
	{"44b52d02c7e14af6", "1e+23"},
	{"44b52d02c7e14af7", "1.0000000000000001e+23"},
	{"444b1ae4d6e2ef4e", "999999999999999700000"},
	{"444b1ae4d6e2ef4f", "999999999999999900000"},
	{"444b1ae4d6e2ef50", "1e+21"},
	{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"},
	{"3eb0c6f7a0b5ed8d", "0.000001"},
	{"41b3de4355555553", "333333333.3333332"},
	{"41b3de4355555554", "333333333.33333325"},
	{"41b3de4355555555", "333333333.3333333"},
	{"41b3de4355555556", "333333333.3333334"},
	{"41b3de4355555557", "333333333.33333343"},
	{"becbf647612f3696", "-0.0000033333333333333333"},
	{"43143ff3c1cb0959", "1424953923781206.2"},
}

// spellings are different JSON texts of one double: the canonical form must not depend on which one came.
func spellings(f float64) []string {
	s := []string{
		strconv.FormatFloat(f, 'g', -1, 64),
		strconv.FormatFloat(f, 'e', -1, 64),
		strconv.FormatFloat(f, 'e', 16, 64),
		strconv.FormatFloat(f, 'E', 25, 64),
		strconv.FormatFloat(f, 'f', -1, 64),
	}
	if f != 0 && math.Abs(f) < 1e25 {
		s = append(s, strconv.FormatFloat(f, 'f', 340, 64))
	}
	return s
}

func TestAppendixB(t *testing.T) {
	for _, c := range appendixB {
		bits, err := strconv.ParseUint(c.bits, 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		f := math.Float64frombits(bits)
		for _, in := range spellings(f) {
			if got := canon(t, in); got != c.want {
				t.Errorf("%s spelled %s: got %s, want %s", c.bits, in, got, c.want)
			}
		}
	}
}

func TestNumbers(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1.0", "1"}, {"1e21", "1e+21"}, {"1E+21", "1e+21"}, {"0.000001", "0.000001"}, {"1e-6", "0.000001"},
		{"1e-7", "1e-7"}, {"-0", "0"}, {"-0.0", "0"}, {"0e10", "0"}, {"-0E-5", "0"}, {"0.000", "0"},
		{"295147905179352830000", "295147905179352830000"}, {"9007199254740992", "9007199254740992"},
		{"9007199254740993", "9007199254740992"}, {"5e-324", "5e-324"}, {"4.9e-324", "5e-324"},
		{"2e-324", "0"}, {"1e-400", "0"}, {"-1e-400", "0"}, {"1.7976931348623157e308", "1.7976931348623157e+308"},
		{"1.7976931348623158e308", "1.7976931348623157e+308"}, {"4.50", "4.5"}, {"2e-3", "0.002"},
		{"1E30", "1e+30"}, {"0.000000000000000000000000001", "1e-27"}, {"333333333.33333329", "333333333.3333333"},
		{"100", "100"}, {"1e2", "100"}, {"0.1e1", "1"}, {"10e-1", "1"}, {"0.00001", "0.00001"},
		{"1.5e-7", "1.5e-7"}, {"123e-20", "1.23e-18"}, {"-1.5", "-1.5"}, {"12e20", "1.2e+21"},
		{"100000000000000000000", "100000000000000000000"}, {"999999999999999999999", "1e+21"},
		{"123456789012345", "123456789012345"}, {"1234567890123456", "1234567890123456"},
		{"12345678901234567", "12345678901234568"}, {"123456789012345678901234567890", "1.2345678901234568e+29"},
		{"1000000000000000000000000000000", "1e+30"}, {"0.1", "0.1"}, {"0.30000000000000004", "0.30000000000000004"},
		{"1e300", "1e+300"}, {"1e-300", "1e-300"}, {"-123.456e-3", "-0.123456"}, {"7.0E+2", "700"},
		{"1" + strings.Repeat("0", 400) + "e-400", "1"}, {"0." + strings.Repeat("0", 400) + "1e401", "1"},
		{"1e0000000000000000000000001", "10"}, {"0e99999999999999999999999", "0"}, {"1e-99999999999999999", "0"},
	} {
		if got := canon(t, c.in); got != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
	}
}

func TestStrings(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"\u0000"`, `"\u0000"`}, {`"\u001F"`, `"\u001f"`}, {`"\u007f"`, "\"\x7f\""}, {`"\/"`, `"/"`},
		{`"\u2028\u2029"`, "\"\u2028\u2029\""}, {`"\ud83d\ude00"`, `"😀"`}, {`"\uD83D\uDE00"`, `"😀"`},
		{`"\b\f\n\r\t"`, `"\b\f\n\r\t"`}, {`"\u0008\u000C\u000a\u000D\u0009"`, `"\b\f\n\r\t"`},
		{`"\u0022\u005C"`, `"\"\\"`}, {`"é€😀"`, `"é€😀"`}, {`"\u00e9"`, `"é"`}, {`"\uFFFF"`, "\"\uffff\""},
		{`"\uFFFD"`, "\"\ufffd\""}, {`"\udbff\udfff"`, "\"\U0010FFFF\""}, {`""`, `""`},
		{`"a very long plain string that crosses several eight-byte words\n and then \"more\" text"`,
			`"a very long plain string that crosses several eight-byte words\n and then \"more\" text"`},
		{"\"\x7f\u0080ÿ\"", "\"\x7f\u0080ÿ\""},
	} {
		if got := canon(t, c.in); got != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
	}
}

func TestStructure(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{" \t\r\n[ 1 , { } , [ ] , { \"b\" : null , \"a\" : true } ] \n", `[1,{},[],{"a":true,"b":null}]`},
		{`{"b":{"d":[{"z":1,"y":2}],"c":3},"a":[3,2,1]}`, `{"a":[3,2,1],"b":{"c":3,"d":[{"y":2,"z":1}]}}`},
		{`"top"`, `"top"`}, {`true`, `true`}, {`null`, `null`}, {` 42 `, `42`},
		{`{"aa":1,"a":2,"":3,"ab":4,"b":5}`, `{"":3,"a":2,"aa":1,"ab":4,"b":5}`},
		{`{"\uffff":1,"\ud800\udc00":2,"\ud7ff":3,"\ue000":4}`, "{\"\ud7ff\":3,\"\U00010000\":2,\"\ue000\":4,\"\uffff\":1}"},
		{`{"a\n":1,"a\u0000":2,"a\"":3}`, `{"a\u0000":2,"a\n":1,"a\"":3}`},
		{`{"n":{"y":[{"b":1,"a":2},{"d":3,"c":4}],"x":"é"}}`, `{"n":{"x":"é","y":[{"a":2,"b":1},{"c":4,"d":3}]}}`},
	} {
		if got := canon(t, c.in); got != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
	}
}

// TestHashIgnoresSpelling is the contract of API.md: key order, white space and number spelling do not
// change a record's hash.
func TestHashIgnoresSpelling(t *testing.T) {
	a := `{"amount": 1.0, "name": "caf\u00e9", "tags": ["x", "y"], "n": {"b": 1e2, "a": -0}}`
	b := "{\"n\":{\"a\":0,\"b\":100},\"tags\":[\"x\",\"y\"],\"name\":\"café\",\"amount\":1}"
	_, ha, err := jcs.Hash([]byte(a))
	if err != nil {
		t.Fatal(err)
	}
	_, hb, err := jcs.Hash([]byte(b))
	if err != nil {
		t.Fatal(err)
	}
	if ha != hb {
		t.Errorf("hashes differ: %x %x", ha, hb)
	}
	_, hc, _ := jcs.Hash([]byte(`{"amount": 1.5}`))
	if hc == ha {
		t.Error("different data, same hash")
	}
}
