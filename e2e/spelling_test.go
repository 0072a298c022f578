package e2e

import (
	"strings"
	"testing"
)

// TestSealAnySpellingOfADouble (issue 44): a number with a fraction or an exponent is sealed as RFC 8785 hashes
// it, however many digits the client printed: the RFC's own 333333333.33333329 and %.17g's 0.10000000000000001
// were a 400 and are now sealed, and verifying by data with the shortest spelling finds the same record. An
// integer literal no double holds and that is not its own canonical form (2^53+1) is still a 400 (RFC 7493),
// while 2^53 and -333333333333333400 stay accepted.
func TestSealAnySpellingOfADouble(t *testing.T) {
	t.Parallel()
	in := startServe(t, t.TempDir(), nil)
	for sent, shortest := range map[string]string{
		`{"rfc":333333333.33333329}`:                         `{"rfc":333333333.3333333}`,
		`{"g17":0.10000000000000001,"x":1e-400}`:             `{"g17":0.1,"x":0}`,
		`{"a":[9007199254740993.0,2.2250738585072014e-308]}`: `{"a":[9007199254740992,2.2250738585072014e-308]}`,
		`{"big":1152921504606846976}`:                        `{"big":1152921504606847000}`,
		`{"n":9007199254740992,"m":-333333333333333400}`:     `{"m":-333333333333333400,"n":9007199254740992}`,
	} {
		r := in.call("POST", authPath, in.Sub, in.API, "application/json", `{"data":`+sent+`,"to":"a@example.com"}`)
		if r.Status != 201 {
			t.Errorf("sealing %s: %d %s, want 201", sent, r.Status, r.Raw)
			continue
		}
		v := in.call("POST", verifyBase+"data", in.Sub, in.API, "application/json", `{"data":`+shortest+`}`)
		if v.Status != 200 || str(v.Body, "data.details.reference") != str(r.Body, "data.reference") {
			t.Errorf("%s sealed, verifying %s: %d %s", sent, shortest, v.Status, v.Raw)
		}
	}
	for _, data := range []string{`{"a":9007199254740993}`, `{"a":-1152921504606846977}`} {
		r := in.call("POST", authPath, in.Sub, in.API, "application/json", `{"data":`+data+`,"to":"a@example.com"}`)
		if msg := str(r.Body, "error"); r.Status != 400 || !strings.Contains(msg, "RFC 7493") || !strings.Contains(msg, "data.a") {
			t.Errorf("sealing %s: %d %s, want 400 naming RFC 7493 and data.a", data, r.Status, r.Raw)
		}
	}
}
