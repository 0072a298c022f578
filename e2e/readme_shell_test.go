package e2e

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// shellPart is a piece of a shell word: unquoted (kind 0), '\” or '"' quoted, '$' a $(...) command
// substitution, '(' a parenthesized list.
type shellPart struct {
	kind byte
	text string
}

type shellWord []shellPart

func (wd shellWord) raw() string {
	var b strings.Builder
	for _, p := range wd {
		b.WriteString(p.text)
	}
	return b.String()
}

// shellCmd is one command of a sh block: its words before expansion, its text as written (continuations
// joined, spaces collapsed, comment left out) and its comment. A comment line is a shellCmd without words.
type shellCmd struct {
	line    int
	text    string
	words   []shellWord
	comment string
}

// parseShell splits sh source into commands the way sh reads it: words, quotes, backslash-newline
// continuations, quoted strings across lines, comments. first is the line number of src's first line.
func parseShell(src string, first int) ([]shellCmd, error) {
	var cmds []shellCmd
	var cur shellCmd
	var word shellWord
	inWord, started := false, false
	line, start, textEnd := first, 0, -1
	begin := func(i int) {
		if !started {
			started, start, cur.line = true, i, line
		}
		inWord = true
	}
	endWord := func() {
		if inWord {
			cur.words = append(cur.words, word)
		}
		word, inWord = nil, false
	}
	endCmd := func(i int) {
		endWord()
		if textEnd < 0 {
			textEnd = i
		}
		if started {
			cur.text = strings.Join(strings.Fields(strings.ReplaceAll(src[start:textEnd], "\\\n", " ")), " ")
		}
		if len(cur.words) > 0 || cur.comment != "" {
			if !started {
				cur.line = line
			}
			cmds = append(cmds, cur)
		}
		cur, started, textEnd = shellCmd{}, false, -1
	}
	add := func(kind byte, text string) {
		if kind == 0 && len(word) > 0 && word[len(word)-1].kind == 0 {
			word[len(word)-1].text += text
			return
		}
		word = append(word, shellPart{kind, text})
	}
	closing := func(i int, open, close byte) (int, error) {
		depth := 0
		for j := i; j < len(src); j++ {
			switch src[j] {
			case open:
				depth++
			case close:
				if depth--; depth == 0 {
					return j, nil
				}
			}
		}
		return 0, fmt.Errorf("line %d: %c not closed", line, open)
	}
	for i := 0; i < len(src); i++ {
		ch := src[i]
		switch {
		case ch == ' ' || ch == '\t':
			endWord()
		case ch == '\n':
			endCmd(i)
			line++
		case ch == '\\' && i+1 < len(src) && src[i+1] == '\n':
			endWord()
			i++
			line++
		case ch == '\\' && i+1 < len(src):
			begin(i)
			add(0, src[i+1:i+2])
			i++
		case ch == '#' && !inWord:
			eol := strings.IndexByte(src[i:], '\n')
			if eol < 0 {
				eol = len(src) - i
			}
			cur.comment = strings.TrimSpace(src[i+1 : i+eol])
			if started {
				textEnd = i
			}
			i += eol - 1
		case ch == '\'':
			begin(i)
			j := strings.IndexByte(src[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("line %d: ' not closed", line)
			}
			text := src[i+1 : i+1+j]
			add('\'', text)
			line += strings.Count(text, "\n")
			i += j + 1
		case ch == '"':
			begin(i)
			var b strings.Builder
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\\' && j+1 < len(src) && strings.IndexByte("\"\\$`", src[j+1]) >= 0 {
					j++
				}
				if src[j] == '\n' {
					line++
				}
				b.WriteByte(src[j])
			}
			if j == len(src) {
				return nil, errors.New(`" not closed`)
			}
			add('"', b.String())
			i = j
		case ch == '$' && i+1 < len(src) && src[i+1] == '(':
			begin(i)
			j, err := closing(i+1, '(', ')')
			if err != nil {
				return nil, err
			}
			add('$', src[i+2:j])
			i = j
		case ch == '(':
			begin(i)
			j, err := closing(i, '(', ')')
			if err != nil {
				return nil, err
			}
			add('(', src[i+1:j])
			line += strings.Count(src[i:j], "\n")
			i = j
		default:
			begin(i)
			add(0, src[i:i+1])
		}
	}
	endCmd(len(src))
	return cmds, nil
}

// TestParseShell pins the parts of sh the walk-through relies on.
func TestParseShell(t *testing.T) {
	t.Parallel()
	src := "A=(-H \"x: $B\")  # arr\ncurl -s \"${A[@]}\" $B/p \\\n  -d '{\"a\":1,\n \"b\":2}'\n# {\"ok\":1}\nX=$(jq -r .k f)\n"
	cmds, err := parseShell(src, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cmds {
		got = append(got, fmt.Sprintf("%d|%s|%d|%s", c.line, c.text, len(c.words), c.comment))
	}
	want := []string{
		`10|A=(-H "x: $B")|1|arr`,
		"11|curl -s \"${A[@]}\" $B/p -d '{\"a\":1, \"b\":2}'|6|",
		`14||0|{"ok":1}`,
		`15|X=$(jq -r .k f)|1|`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parseShell:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if w := cmds[1].words[5]; len(w) != 1 || w[0].kind != '\'' || w[0].text != "{\"a\":1,\n \"b\":2}" {
		t.Errorf("the -d body: %+v", w)
	}
}
