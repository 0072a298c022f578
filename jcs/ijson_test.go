package jcs

import (
	"strings"
	"testing"
)

// TestIJSON: CanonicalizeIJSON refuses integer literals that no double holds and that are not their own
// canonical form, and Unicode noncharacters, raw or escaped, naming RFC 7493, while plain Canonicalize (RFC
// 8785) still takes them. A fraction or an exponent is hashed as RFC 8785 says, whatever its digits.
func TestIJSON(t *testing.T) {
	for _, in := range []string{
		`{"a":9007199254740993}`, `{"a":-9007199254740993}`, `[100000000000000000001]`, `[18014398509481985]`,
		`[-1152921504606846977]`, `{"a":"\uffff"}`, `{"a":"\ufdd0"}`, "{\"a\":\"x\uFFFEy\"}", `{"\ud83f\udffe":1}`, "[\"\U0010FFFF\"]",
	} {
		_, err := CanonicalizeIJSON([]byte(in), "data")
		if err == nil || !strings.Contains(err.Error(), "RFC 7493") {
			t.Errorf("%s: %v, want a refusal naming RFC 7493", in, err)
		}
		if _, err := Canonicalize([]byte(in)); err != nil {
			t.Errorf("plain RFC 8785 refused %s: %v", in, err)
		}
	}
	for in, want := range map[string]string{
		`{"a":9007199254740991}`:    `{"a":9007199254740991}`,
		`{"a":9007199254740992}`:    `{"a":9007199254740992}`,
		`{"a":-9007199254740992}`:   `{"a":-9007199254740992}`,
		`[100000000000000000000]`:   `[100000000000000000000]`,
		`[-333333333333333400]`:     `[-333333333333333400]`,
		`[1e21,1E+21,5e-324,4.50]`:  `[1e+21,1e+21,5e-324,4.5]`,
		`[9007199254740992.000]`:    `[9007199254740992]`,
		`[-0.0e5,0e-400]`:           `[0,0]`,
		`{"a":-9007199254740991}`:   `{"a":-9007199254740991}`,
		`{"a":1e300,"b":1.5}`:       `{"a":1e+300,"b":1.5}`,
		`{"a":"\ufffd\ufdcf"}`:      "{\"a\":\"\ufffd\ufdcf\"}",
		`{"a":"9007199254740993"}`:  `{"a":"9007199254740993"}`,
		`[333333333.33333329]`:      `[333333333.3333333]`,
		`[0.10000000000000001]`:     `[0.1]`,
		`[1e-400,-2e-324]`:          `[0,0]`,
		`[9007199254740993.0]`:      `[9007199254740992]`,
		`[9.007199254740993e15]`:    `[9007199254740992]`,
		`[1152921504606846976]`:     `[1152921504606847000]`,
		`[10000000000000000000000]`: `[1e+22]`,
	} {
		got, err := CanonicalizeIJSON([]byte(in), "data")
		if err != nil || string(got) != want {
			t.Errorf("%s: %s %v, want %s", in, got, err, want)
		}
	}
}
