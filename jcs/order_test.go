package jcs

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf16"
)

func sign(x int) int { return min(max(x, -1), 1) }

// TestCompareUTF16 pits the byte-level comparison and the eight-byte prefixes against encoding both names in
// UTF-16, on names that share long prefixes and mix the ranges where UTF-8 and UTF-16 orders disagree.
func TestCompareUTF16(t *testing.T) {
	alphabet := []rune{0, 'a', 'b', 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xEFFF, 0xF000, 0xFFFF, 0x10000,
		0x3FFFF, 0x40000, 0xFFFFF, 0x100000, 0x10FFFF}
	r := rand.New(rand.NewPCG(7, 8))
	name := func(prefix []rune) []rune {
		s := slices.Clone(prefix)
		for range r.IntN(6) {
			s = append(s, alphabet[r.IntN(len(alphabet))])
		}
		return s
	}
	for range 200000 {
		common := name(nil)
		a, b := name(common), name(common)
		want := slices.Compare(utf16.Encode(a), utf16.Encode(b))
		ka, kb := []byte(string(a)), []byte(string(b))
		if got := compareUTF16(ka, kb); sign(got) != want {
			t.Fatalf("compareUTF16(%q, %q) = %d, want %d", ka, kb, got, want)
		}
		m := member{prefix: sortPrefix(ka), key: ka}
		if got := compareMembers(&m, sortPrefix(kb), kb); sign(got) != want {
			t.Fatalf("compareMembers(%q, %q) = %d, want %d", ka, kb, got, want)
		}
	}
}
