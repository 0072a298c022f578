package mail

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"

	"seald.dev/seald"
)

// checkLink admits an absolute http or https URL, or nothing. The link is written into an href attribute of
// the HTML part, where a javascript: or data: URL would be an attack on the recipient.
func checkLink(link string) (string, error) {
	if link == "" {
		return "", nil
	}
	u, err := url.Parse(link)
	if err != nil {
		return "", seald.Errorf(seald.EINVALID, "mail: verification link: %v", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", seald.Errorf(seald.EINVALID, "mail: verification link %q is not an absolute http(s) URL", link)
	}
	if strings.ContainsAny(link, " \t\r\n") {
		return "", seald.Errorf(seald.EINVALID, "mail: verification link contains white space")
	}
	return link, nil
}

// skipped are the elements whose content a reader never sees as text.
var skipped = map[string]bool{"head": true, "script": true, "style": true, "template": true, "title": true}

// blocks are the elements that start a new line when read as text; paragraphs also leave a blank line.
var (
	blocks = map[string]bool{
		"address": true, "article": true, "aside": true, "br": true, "dd": true, "div": true, "dt": true,
		"footer": true, "header": true, "li": true, "main": true, "nav": true, "section": true, "tr": true,
	}
	paragraphs = map[string]bool{
		"blockquote": true, "dl": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
		"hr": true, "ol": true, "p": true, "pre": true, "table": true, "ul": true,
	}
)

// textFromHTML derives the plain-text alternative of an HTML body: the text a reader would see, one line per
// block, list items marked, and each link's address after its text. It runs the body through the HTML5
// tokenizer of golang.org/x/net/html rather than patterns, so entities are decoded, comments and scripts
// dropped, and malformed markup degrades to less text instead of leaking tags. The result is only ever put in
// a text/plain part, so nothing in it needs escaping.
func textFromHTML(body string) string {
	z := html.NewTokenizer(strings.NewReader(body))
	var (
		t     plainText
		skip  int      // depth inside skipped elements
		pre   int      // depth inside <pre>, where white space is kept
		hrefs []string // open <a> elements' addresses, "" for those without one
	)
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return tidyText(t.b.String())
		}
		name, hasAttr := z.TagName()
		tag := string(name)
		switch tt {
		case html.TextToken:
			switch {
			case skip > 0:
			case pre > 0:
				t.b.Write(z.Text())
			default:
				t.words(string(z.Text()))
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			if skipped[tag] {
				if tt == html.StartTagToken {
					skip++
				}
				continue
			}
			if skip > 0 {
				continue
			}
			switch {
			case tag == "li":
				t.newline()
				t.b.WriteString("- ")
			case tag == "pre" && tt == html.StartTagToken:
				t.paragraph()
				pre++
			case paragraphs[tag]:
				t.paragraph()
			case blocks[tag]:
				t.newline()
			case tag == "td" || tag == "th":
				t.words(" ")
			case tag == "img":
				if alt := attr(z, hasAttr, "alt"); alt != "" {
					t.words("[" + alt + "]")
				}
			case tag == "a" && tt == html.StartTagToken:
				hrefs = append(hrefs, attr(z, hasAttr, "href"))
			}
		case html.EndTagToken:
			if skipped[tag] {
				if skip > 0 {
					skip--
				}
				continue
			}
			if skip > 0 {
				continue
			}
			switch {
			case tag == "a" && len(hrefs) > 0:
				href := hrefs[len(hrefs)-1]
				hrefs = hrefs[:len(hrefs)-1]
				if shown(href) && !strings.HasSuffix(t.b.String(), href) {
					t.words(" <" + href + ">")
				}
			case tag == "pre":
				if pre > 0 {
					pre--
				}
				t.paragraph()
			case paragraphs[tag]:
				t.paragraph()
			case blocks[tag]:
				t.newline()
			}
		}
	}
}

// plainText accumulates text the way a browser lays it out: runs of white space collapse to one space, and
// no space starts a line.
type plainText struct {
	b strings.Builder
}

func (t *plainText) last() byte {
	s := t.b.String()
	if s == "" {
		return '\n'
	}
	return s[len(s)-1]
}

func (t *plainText) words(s string) {
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' {
			if c := t.last(); c != ' ' && c != '\n' {
				t.b.WriteByte(' ')
			}
			continue
		}
		t.b.WriteRune(r)
	}
}

func (t *plainText) newline() {
	if t.b.Len() > 0 && t.last() != '\n' {
		t.b.WriteByte('\n')
	}
}

func (t *plainText) paragraph() {
	t.newline()
	if s := t.b.String(); s != "" && !strings.HasSuffix(s, "\n\n") {
		t.b.WriteByte('\n')
	}
}

// attr returns the value of the named attribute of the current tag.
func attr(z *html.Tokenizer, more bool, name string) string {
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		if string(k) == name {
			return string(v)
		}
	}
	return ""
}

// shown reports whether a link's address is worth writing after its text: a web or mail address, not a
// fragment or a script.
func shown(href string) bool {
	h := strings.ToLower(href)
	return strings.HasPrefix(h, "http://") || strings.HasPrefix(h, "https://") || strings.HasPrefix(h, "mailto:")
}

// tidyText trims each line's trailing white space and the text's leading and trailing blank lines, and keeps
// at most one blank line between paragraphs.
func tidyText(s string) string {
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	blank := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.Trim(strings.Join(out, "\n"), "\n")
}
