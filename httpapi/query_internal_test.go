package httpapi

import (
	"net/url"
	"strings"
	"testing"
)

// queryValue answers what url.ParseQuery(raw).Get(name) answers, for every query.
func FuzzQueryValue(f *testing.F) {
	for _, raw := range []string{"", "hash=ab", "hash=a&hash=b", "x=1&hash=%41b", "h%61sh=1", "hash=%zz&hash=2",
		"hash=1;x=2&hash=3", "hash", "hash=&hash=2", "a+b=c&hash=d+e", "%zz=1&hash=2", "&&hash=3&", "proof=1&proof=0",
		strings.Repeat("a=1&", 1200) + "hash=x"} {
		f.Add(raw, "hash")
		f.Add(raw, "proof")
	}
	f.Add("a b=1", "a b")
	f.Fuzz(func(t *testing.T, raw, name string) {
		q, _ := url.ParseQuery(raw)
		if got, want := queryValue(raw, name), q.Get(name); got != want {
			t.Errorf("queryValue(%q, %q) = %q, ParseQuery has %q", raw, name, got, want)
		}
	})
}
