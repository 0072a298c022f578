package httpapi

import (
	"net/http/httptest"
	"strings"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/jcs"
)

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"data":{"a":1},"to":"a@b.c"}`, `{`, `[]`, `{"data":[1]}`, `{} {}`, `{"is_html":2}`, "\xff"} {
		f.Add(s, "application/json")
	}
	f.Add(`{}`, "text/plain")
	f.Add(`{}`, "application/json; charset=latin1")
	f.Fuzz(func(t *testing.T, body, ct string) {
		r := httptest.NewRequest("POST", "/x", strings.NewReader(body))
		r.Header.Set("Content-Type", ct)
		b, err := decode(r, 1<<16)
		if err != nil {
			switch seald.ErrorCode(err) {
			case seald.EINVALID, seald.EUNSUPPORTED, seald.ETOOLARGE:
			default:
				t.Fatalf("decode error %v has code %s", err, seald.ErrorCode(err))
			}
			return
		}
		// Whatever decoded, the member checks answer without panicking and only with EINVALID.
		if _, err := sealRequest(b, "POLYGON"); err != nil && seald.ErrorCode(err) != seald.EINVALID {
			t.Fatalf("sealRequest: %v", err)
		}
	})
}

// TestDecodeDepth: a body nested beyond MaxDepth is a 400 naming the limit, whichever member holds the
// nesting, and brackets inside strings do not count. MaxDepth leaves room for a data member as deep as the
// canonicalizer accepts.
func TestDecodeDepth(t *testing.T) {
	if MaxDepth != jcs.MaxDepth+1 {
		t.Fatalf("MaxDepth %d, want jcs.MaxDepth+1 (%d)", MaxDepth, jcs.MaxDepth+1)
	}
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, c := range []struct {
		body string
		ok   bool
	}{
		{`{"data":` + nest(MaxDepth-1) + `}`, true},
		{`{"data":` + nest(MaxDepth) + `}`, false},
		{`{"to":` + nest(5000) + `}`, false},
		{`{"to":"` + strings.Repeat("[{", 5000) + `"}`, true},
		{`{"to":"\"` + strings.Repeat("[", 500) + `"}`, true},
	} {
		r := httptest.NewRequest("POST", "/x", strings.NewReader(c.body))
		r.Header.Set("Content-Type", "application/json")
		_, err := decode(r, 1<<20)
		if c.ok && err != nil {
			t.Errorf("%.40s…: %v", c.body, err)
		}
		if !c.ok && (seald.ErrorCode(err) != seald.EINVALID || !strings.Contains(err.Error(), "deeper than 129 levels")) {
			t.Errorf("%.40s…: %v, want a 400 naming the limit", c.body, err)
		}
	}
}

// TestAmbiguousBodiesRefused: a body two parsers could read differently is refused with 400, not read
// last-one-wins: a member given twice (the second data, or a null password after a real one), or anything
// after the object.
func TestAmbiguousBodiesRefused(t *testing.T) {
	for _, body := range []string{
		`{"data":{"a":1},"to":"a@b.c","password":"p","password":null}`,
		`{"data":{"a":1},"data":{"a":2},"to":"a@b.c"}`,
		`{"data":{"a":1},"to":"a@b.c","\u0074o":"x@y.z"}`,
		`{"data":{"a":1},"to":"a@b.c"}}`,
		`{"data":{"a":1},"to":"a@b.c"}]`,
		`{"data":{"a":1},"to":"a@b.c"} {}`,
		`{"data":{"a":1},"to":"a@b.c"} x`,
	} {
		r := httptest.NewRequest("POST", "/x", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		if _, err := decode(r, 1<<16); seald.ErrorCode(err) != seald.EINVALID {
			t.Errorf("%s: %v, want EINVALID", body, err)
		}
	}
	r := httptest.NewRequest("POST", "/x", strings.NewReader(" {\"data\":{\"a\":1},\"to\":\"a@b.c\"} \n"))
	r.Header.Set("Content-Type", "application/json")
	if b, err := decode(r, 1<<16); err != nil || len(b) != 2 {
		t.Errorf("a plain body with white space around it: %v %v", b, err)
	}
}

// only refuses a member it was not given, naming it (POST /authentication/erase refuses {"extra":1}).
func TestBodyOnly(t *testing.T) {
	b := body{"reference": []byte(`"D-1"`), "reason": []byte(`"x"`)}
	if err := b.only("reference", "reason"); err != nil {
		t.Errorf("known members: %v", err)
	}
	b["extra"] = []byte(`1`)
	err := b.only("reference", "reason")
	if seald.ErrorCode(err) != seald.EINVALID || !strings.Contains(seald.ErrorMessage(err), `"extra"`) {
		t.Errorf("an unknown member: %v, want EINVALID naming it", err)
	}
}
