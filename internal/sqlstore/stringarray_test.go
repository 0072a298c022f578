package sqlstore

import (
	"encoding/json"
	"reflect"
	"testing"
)

// stringArray decodes what encoding/json decodes into a []string, to the same value, or leaves it to
// encoding/json; it never accepts what encoding/json refuses.
func TestStringArray(t *testing.T) {
	for _, s := range []string{
		`[]`, ` [ ] `, `["a"]`, `["0x12ab","0x34cd"]`, `["a", "b",  "c"]`, "[\n\"a\",\t\"b\"\n]", `[""]`,
		`["é","日本","😀"]`, `["a\"b"]`, `["a\\b"]`, `["\u00e9"]`, "[\"a\x01\"]", "[\"\xff\"]", `null`, ``, `[`, `["a"`,
		`["a",]`, `["a" "b"]`, `["a"]x`, `[1]`, `["a",1]`, `[null]`, `{"a":1}`, `"a"`, `[ "a" ] `, `["a"],`,
	} {
		var want []string
		werr := json.Unmarshal([]byte(s), &want)
		got, ok := stringArray(s)
		if !ok {
			continue // left to encoding/json
		}
		if werr != nil {
			t.Errorf("%q: accepted %q, encoding/json refuses it: %v", s, got, werr)
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %q, encoding/json gives %q", s, got, want)
		}
	}
	for _, s := range []string{`[]`, `["0x12ab","0x34cd"]`, `["a", "b"]`} {
		if _, ok := stringArray(s); !ok {
			t.Errorf("%q is left to encoding/json", s)
		}
	}
}
