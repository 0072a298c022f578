package jcs_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"

	"github.com/go-json-experiment/json/jsontext"

	"seald.dev/seald/jcs"
)

// checkES6 checks out, the canonical form of f, against ECMAScript's Number::toString without reusing the
// package's code: it must read back as f, have the fewest significant digits that do so, be the closest such
// spelling to f, and use exponent notation exactly outside [1e-6, 1e21).
func checkES6(t *testing.T, f float64, out string) {
	t.Helper()
	back, err := strconv.ParseFloat(out, 64)
	if err != nil || back != f {
		t.Fatalf("%v (%x): output %s reads back as %v, %v", f, math.Float64bits(f), out, back, err)
	}
	if f == 0 {
		if out != "0" {
			t.Fatalf("zero written %s", out)
		}
		return
	}
	mant := strings.TrimPrefix(out, "-")
	mant, _, hasExp := strings.Cut(mant, "e")
	digits := strings.Trim(strings.ReplaceAll(mant, ".", ""), "0")
	k := len(digits)
	if k > 1 {
		shorter, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'e', k-2, 64), 64)
		if shorter == f {
			t.Fatalf("%v: output %s is not the shortest", f, out)
		}
	}
	closest := strings.Trim(strings.ReplaceAll(strings.Split(strconv.FormatFloat(math.Abs(f), 'e', k-1, 64), "e")[0], ".", ""), "0")
	if closest != digits {
		t.Fatalf("%v: output %s has digits %s, the closest %d-digit decimal is %s", f, out, digits, k, closest)
	}
	a := math.Abs(f)
	if wantExp := a < 1e-6 || a >= 1e21; wantExp != hasExp {
		t.Fatalf("%v: output %s, exponent notation expected: %v", f, out, wantExp)
	}
	if hasExp && !strings.Contains(out, "e+") && !strings.Contains(out, "e-") {
		t.Fatalf("%v: exponent without sign in %s", f, out)
	}
	if strings.HasSuffix(mant, ".") || strings.HasSuffix(mant, "0") && strings.Contains(mant, ".") {
		t.Fatalf("%v: trailing zero or point in %s", f, out)
	}
}

func TestNumbersRandomDoubles(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 50000
	if testing.Short() {
		n = 5000
	}
	for range n {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		for _, in := range spellings(f)[:4] {
			out := canon(t, in)
			checkES6(t, f, out)
		}
	}
}

// TestNumbersRandomDecimals aims at the path that skips float conversion: short decimals at every exponent,
// including the edges of that path and the subnormal range, where it must hand over to strconv.
func TestNumbersRandomDecimals(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 100000
	if testing.Short() {
		n = 10000
	}
	for i := range n {
		digits := strconv.FormatUint(r.Uint64N(1_000_000_000_000_000_000), 10)
		digits = digits[:1+r.IntN(min(len(digits), 18))]
		var in string
		switch i % 4 {
		case 0:
			in = digits + "e" + strconv.Itoa(r.IntN(660)-330)
		case 1:
			p := r.IntN(len(digits) + 1)
			in = digits[:p] + "." + digits[p:] + "0"
			if p == 0 {
				in = "0" + in
			}
		case 2:
			in = "-0.000" + digits + "E+" + strconv.Itoa(r.IntN(320))
		default:
			in = digits + strings.Repeat("0", r.IntN(25))
		}
		f, err := strconv.ParseFloat(in, 64)
		out, cerr := jcs.Canonicalize([]byte(in))
		if err != nil {
			if cerr == nil {
				t.Fatalf("%s overflows a double, got %s", in, out)
			}
			continue
		}
		if cerr != nil {
			t.Fatalf("%s: %v", in, cerr)
		}
		checkES6(t, f, string(out))
	}
}

func utf16Less(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// TestSortOrder sorts objects of random names drawn from the ranges where UTF-8 and UTF-16 orders part, small
// (insertion sort) and large (general sort), against utf16.Encode as the reference.
func TestSortOrder(t *testing.T) {
	alphabet := []rune{'a', 'b', 'z', 0, '\n', '"', '\\', 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFB33,
		0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF, 0x20AC}
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 3000 {
		n := 1 + r.IntN(40)
		names := map[string]bool{}
		for len(names) < n {
			var s []rune
			for range r.IntN(12) {
				s = append(s, alphabet[r.IntN(len(alphabet))])
			}
			names[string(s)] = true
		}
		var in bytes.Buffer
		in.WriteByte('{')
		var want []string
		i := 0
		for name := range names { // random order
			if i > 0 {
				in.WriteByte(',')
			}
			q, _ := json.Marshal(name)
			if round%2 == 0 { // also as escapes
				q = []byte(strconv.QuoteToASCII(name))
				q = bytes.ReplaceAll(q, []byte(`\x00`), []byte(`\u0000`))
				q = bytes.ReplaceAll(q, []byte(`\x7f`), []byte(`\u007f`))
				q = escapeAstral(q)
			}
			in.Write(q)
			fmt.Fprintf(&in, ":%d", i)
			want = append(want, name)
			i++
		}
		in.WriteByte('}')
		slices.SortFunc(want, utf16Less)
		out, err := jcs.Canonicalize(in.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", in.Bytes(), err)
		}
		var got []string
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.Token()
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, tok.(string))
			dec.Token()
		}
		if !slices.Equal(got, want) {
			t.Fatalf("input %s\ngot order  %q\nwant order %q", in.Bytes(), got, want)
		}
	}
}

// escapeAstral turns Go's \U0001f600 escapes into JSON surrogate pairs.
func escapeAstral(q []byte) []byte {
	s := string(q)
	var b strings.Builder
	for {
		i := strings.Index(s, `\U`)
		if i < 0 {
			b.WriteString(s)
			return []byte(b.String())
		}
		b.WriteString(s[:i])
		v, _ := strconv.ParseUint(s[i+2:i+10], 16, 32)
		hi, lo := utf16.EncodeRune(rune(v))
		fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
		s = s[i+10:]
	}
}

// TestAgreesWithJSONText compares with an independent implementation, go-json-experiment's jsontext, on the
// benchmark inputs and the RFC sample: both must give the same bytes.
func TestAgreesWithJSONText(t *testing.T) {
	inputs := [][]byte{[]byte(rfcSample), jcs.Sample(1 << 10), jcs.Sample(10 << 10), jcs.Sample(300 << 10)}
	for _, in := range inputs {
		ours, err := jcs.Canonicalize(in)
		if err != nil {
			t.Fatal(err)
		}
		theirs := jsontext.Value(bytes.Clone(in))
		if err := theirs.Canonicalize(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours, theirs) {
			i := 0
			for i < min(len(ours), len(theirs)) && ours[i] == theirs[i] {
				i++
			}
			t.Errorf("outputs differ at byte %d:\nours   %.200s\ntheirs %.200s", i, ours[i:], theirs[i:])
		}
	}
}

func TestSample(t *testing.T) {
	for _, size := range []int{0, 1, 1 << 10, 10 << 10, 1 << 20} {
		s := jcs.Sample(size)
		if len(s) < size || len(s) > size+2048 {
			t.Errorf("Sample(%d) has %d bytes", size, len(s))
		}
		if !json.Valid(s) {
			t.Errorf("Sample(%d) is not JSON", size)
		}
		if !bytes.Equal(s, jcs.Sample(size)) {
			t.Errorf("Sample(%d) changes between calls", size)
		}
	}
	// The benchmark input is pinned: figures from different versions compare only on the same bytes.
	sum := sha256.Sum256(jcs.Sample(10 << 10))
	if got, want := hex.EncodeToString(sum[:]), sample10KSum; got != want {
		t.Errorf("Sample(10KB) changed: SHA-256 %s, want %s", got, want)
	}
}

const sample10KSum = "9d7130686ebfcdff6684ecfa9a16645de39569d45bb3e0bef021535150efdd52"

// TestConcurrent shares the pools between goroutines; run with -race.
func TestConcurrent(t *testing.T) {
	inputs := [][]byte{[]byte(rfcSample), jcs.Sample(2 << 10), []byte(`{"b":1,"a":[{"d":1,"c":2}]}`), []byte(`{"x":1,"x":2}`)}
	want := make([][]byte, len(inputs))
	for i, in := range inputs {
		want[i], _ = jcs.Canonicalize(in)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				k := (g + i) % len(inputs)
				got, _ := jcs.Canonicalize(inputs[k])
				if !bytes.Equal(got, want[k]) {
					t.Errorf("goroutine %d: input %d gave %.80s", g, k, got)
					return
				}
				sum, err := jcs.Sum(inputs[k])
				if (err == nil) != (want[k] != nil) || (err == nil && sum != sha256.Sum256(want[k])) {
					t.Errorf("goroutine %d: Sum of input %d wrong", g, k)
					return
				}
			}
		})
	}
	wg.Wait()
}
