package mail

import (
	"bytes"
	"mime"
	netmail "net/mail"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"seald.dev/seald"
)

func TestTextFromHTML(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "Hello", "Hello"},
		{"entities", "<p>Fish &amp; chips &lt;3 &eacute;t&eacute; &#x2713;</p>", "Fish & chips <3 été ✓"},
		{"paragraphs", "<h1>Title</h1><p>One\n   two</p><p>Three</p>", "Title\n\nOne two\n\nThree"},
		{"line breaks", "a<br>b<br/>c", "a\nb\nc"},
		{"list", "<ul><li>one</li><li>two</li></ul>after", "- one\n- two\n\nafter"},
		{"script and style dropped", "<head><title>T</title><style>p{color:red}</style></head>" +
			"<body><script>alert('x<p>')</script>Visible</body>", "Visible"},
		{"comment dropped", "a<!-- secret -->b", "ab"},
		{"link address shown", `See <a href="https://example.com/v/1">the record</a>.`,
			"See the record <https://example.com/v/1>."},
		{"link text is the address", `<a href="https://example.com/">https://example.com/</a>`,
			"https://example.com/"},
		{"script link hidden", `<a href="javascript:alert(1)">click</a>`, "click"},
		{"inline spacing", "<b>bold</b> <i>italic</i>", "bold italic"},
		{"table cells", "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>", "a b\nc"},
		{"pre keeps spacing", "<pre>a  b\n  c</pre>", "a  b\n  c"},
		{"image alt", `<img src="x.png" alt="logo"> text`, "[logo] text"},
		{"unclosed tags", "<p>open <b>bold <i>both", "open bold both"},
		{"stray angle bracket", "1 < 2 and 3 > 2", "1 < 2 and 3 > 2"},
		{"unclosed script hides the rest", "a<script>b", "a"},
		{"empty", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := textFromHTML(tc.in); got != tc.want {
				t.Errorf("textFromHTML(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func FuzzTextFromHTML(f *testing.F) {
	for _, s := range []string{"<p>a &amp; b</p>", "<script>x</script>y", "<a href='https://x'>y</a>", "<<>>&;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := textFromHTML(in)
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Errorf("invalid UTF-8 out of valid input %q: %q", in, out)
		}
		if strings.Contains(out, "\n\n\n") || strings.HasPrefix(out, "\n") || strings.HasSuffix(out, "\n") {
			t.Errorf("untidy text %q", out)
		}
	})
}

func TestFooterInHTML(t *testing.T) {
	f := footer{reference: "D-1", hash: `<script>"&'`, link: "https://x.example/v?a=1&b=<2>"}
	got := f.addToHTML("<html><BODY><p>hi</p></Body></html>")
	for _, want := range []string{
		"&lt;script&gt;&#34;&amp;&#39;",
		`<a href="https://x.example/v?a=1&amp;b=&lt;2&gt;">`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("footer lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "<script>") {
		t.Errorf("unescaped value in HTML:\n%s", got)
	}
	if !strings.HasSuffix(got, "</p>\n</Body></html>") {
		t.Errorf("footer not placed before </body>:\n%s", got)
	}
	if got := f.addToHTML("<p>fragment</p>"); !strings.HasPrefix(got, "<p>fragment</p>\n<hr>") {
		t.Errorf("footer not appended to a fragment:\n%s", got)
	}
}

func TestMessageIDHost(t *testing.T) {
	cases := map[string]string{
		"a@Example.COM":       "seald.example.com",
		"a@mail.example.org":  "seald.mail.example.org",
		"a@[192.0.2.1]":       "seald.invalid",
		"a@localhost":         "seald.localhost",
		"a@exa_mple.com":      "seald.invalid",
		"\"x@y\"@example.net": "seald.example.net",
	}
	for addr, want := range cases {
		if got := messageIDHost(addr); got != want {
			t.Errorf("messageIDHost(%q) = %q, want %q", addr, got, want)
		}
	}
}

func TestCheckReference(t *testing.T) {
	for _, ok := range []string{"D-2b0d7f6e-6c3a-4e8e-9a4b-1f2e3d4c5b6a", "I-abc", "x"} {
		if err := checkReference(ok); err != nil {
			t.Errorf("checkReference(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-x", ".hidden", "../x", "a/b", `a\b`, "a b", "a@b", "a>b", "é",
		strings.Repeat("a", maxReferenceLen+1)} {
		if err := checkReference(bad); seald.ErrorCode(err) != seald.EINVALID {
			t.Errorf("checkReference(%q) = %v, want EINVALID", bad, err)
		}
	}
}

// FuzzCompose checks that no subject or recipient can add a header: whatever compose accepts renders to a
// message whose header fields are exactly the expected ones, and whose subject decodes back to the input.
func FuzzCompose(f *testing.F) {
	f.Add("Hello", "a@example.com", "Name <b@example.com>")
	f.Add("x\r\nBcc: v@example.com", "a@example.com", "")
	f.Add("Grüße ✓ "+strings.Repeat("long words ", 20), "\"Ünï\" <u@example.com>", "c@example.com")
	f.Add("=?UTF-8?q?Bcc:_x?=", "a@example.com", "")
	c, err := newComposer("Seald <noreply@example.com>")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, subject, to, cc string) {
		m := &seald.Mail{Reference: "D-1", To: []string{to}, Subject: subject, Body: "b", Hash: "h"}
		if cc != "" {
			m.Cc = []string{cc}
		}
		b, err := c.compose(m)
		if err != nil {
			if seald.ErrorCode(err) != seald.EINVALID || !seald.IsPermanent(err) {
				t.Fatalf("error is not a permanent EINVALID: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if _, err := b.msg.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		msg, err := netmail.ReadMessage(&buf)
		if err != nil {
			t.Fatalf("rendered message does not parse: %v", err)
		}
		var keys []string
		for k := range msg.Header {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		want := []string{"Content-Transfer-Encoding", "Content-Type", "Date", "From", "Message-Id", "Mime-Version",
			"Subject", "To"}
		if cc != "" {
			want = append(want, "Cc")
			slices.Sort(want)
		}
		if !slices.Equal(keys, want) {
			t.Fatalf("header fields %q, want %q", keys, want)
		}
		if strings.Contains(subject, "=?") {
			// An ASCII subject is written as it is, so text that looks like an encoded word is decoded by a
			// reader: harmless (it stays inside the Subject field) but not a faithful round trip.
			return
		}
		got, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
		if err != nil {
			t.Fatalf("subject %q: %v", msg.Header.Get("Subject"), err)
		}
		if strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(subject), " ") {
			t.Fatalf("subject %q came back as %q", subject, got)
		}
	})
}

// TestDataLine: the footer's line about the data says, for each reason the data is not attached, why and
// where the recipient can get it, and names the file when it is.
func TestDataLine(t *testing.T) {
	for _, c := range []struct {
		m    seald.Mail
		want string
	}{
		{seald.Mail{Reference: "D-1", Data: []byte(`{}`)}, "attached as D-1.json"},
		{seald.Mail{Reference: "D-1", Business: "Acme", Withheld: seald.WithheldPassword}, "sealed with a password. Ask Acme"},
		{seald.Mail{Reference: "D-1", Business: "Acme", Withheld: seald.WithheldNoCopies}, "Acme hands out no copies"},
		{seald.Mail{Reference: "D-1", Withheld: seald.WithheldErased}, "the sender erased it"},
	} {
		if got := dataLine(&c.m); !strings.Contains(got, c.want) {
			t.Errorf("dataLine(%+v) = %q, want it to say %q", c.m.Withheld, got, c.want)
		}
	}
}
