package jcs

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// numberDoubles is a sequence of doubles in the manner of the RFC 8785 author's number test file (random bit
// patterns over the whole range, subnormals included) plus the integers around 2^53 and beyond that
// JavaScript clients send as plain digits, and the values named in issue 31.
func numberDoubles(n int) []float64 {
	r := rand.New(rand.NewPCG(8785, 7493))
	fs := []float64{math.Pow(2, 53), -333333333333333400, 1e21, 5e-324, math.MaxFloat64, math.SmallestNonzeroFloat64,
		0.1, 0.30000000000000004, 333333333.3333333, 1e23, 9.999999999999999e22, -1.7976931348623157e308}
	for len(fs) < n {
		var f float64
		switch len(fs) % 4 {
		case 0, 1: // any finite double
			f = math.Float64frombits(r.Uint64())
		case 2: // an integer between 2^53 and 2^90, as JSON.stringify writes them in full below 1e21
			f = math.Ldexp(float64(r.Uint64()>>11), 53+r.IntN(38)-53) * float64(1-2*r.IntN(2))
		case 3: // a short decimal, as people type them
			f, _ = strconv.ParseFloat(strconv.FormatInt(r.Int64N(1e9), 10)+"e"+strconv.Itoa(r.IntN(60)-30), 64)
		}
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			fs = append(fs, f)
		}
	}
	return fs
}

// exact is the exact value of a JSON number literal, the oracle the canonicalizer's digit comparison is
// checked against.
func exact(t *testing.T, lit string) *big.Rat {
	t.Helper()
	x, ok := new(big.Rat).SetString(lit)
	if !ok {
		t.Fatalf("big.Rat cannot read %q", lit)
	}
	return x
}

// TestIJSONNumbers: CanonicalizeIJSON gives plain RFC 8785's canonical form for every literal with a fraction
// or an exponent, however many digits it has, and refuses exactly the integer literals that no double holds and
// that are not their own canonical form (decided here with math/big), naming RFC 8785, RFC 7493, the member
// and the value it would become. Each double of the sequence is sent in its shortest spelling, in exponent
// forms of 17, 20 and 26 digits (%.17g is how C, Python's repr before 3.1 and many loggers print a double),
// in full decimal, and as integers next to it. Before issue 44, a fraction or an exponent was refused as soon
// as it was not the shortest spelling: of 12,038 doubles printed with %.17g, 108 were accepted.
func TestIJSONNumbers(t *testing.T) {
	accepted, refused, integers := 0, 0, 0
	for _, f := range numberDoubles(12038) {
		lits := []string{strconv.FormatFloat(f, 'g', -1, 64), strconv.FormatFloat(f, 'e', -1, 64),
			strconv.FormatFloat(f, 'E', 25, 64), strconv.FormatFloat(f, 'e', 19, 64), strconv.FormatFloat(f, 'g', 17, 64),
			trailingZero(strconv.FormatFloat(f, 'e', -1, 64)), fmt.Sprintf("%.17g", f)}
		if math.Abs(f) < 1e30 && math.Abs(f) > 1e-30 {
			lits = append(lits, strconv.FormatFloat(f, 'f', -1, 64), strconv.FormatFloat(f, 'f', 20, 64))
		}
		if f == math.Trunc(f) && math.Abs(f) < 1e30 {
			// The integer the double is, in full, and its neighbours, which a double holds only below 2^53.
			x, _ := new(big.Float).SetFloat64(f).Int(nil)
			for _, d := range []int64{0, 1, -1} {
				lits = append(lits, new(big.Int).Add(x, big.NewInt(d)).String())
			}
		}
		for _, lit := range lits {
			in := `{"n":` + lit + `}`
			plain, err := Canonicalize([]byte(in))
			if err != nil {
				t.Fatalf("plain RFC 8785 refused %s: %v", in, err)
			}
			canonical := string(plain[len(`{"n":`) : len(plain)-1])
			got, err := CanonicalizeIJSON([]byte(in), "data")
			if !refusedByIJSON(t, lit, canonical) {
				if err != nil || string(got) != string(plain) {
					t.Errorf("%s: %s %v, want %s", lit, got, err, plain)
				}
				accepted++
				continue
			}
			integers++
			if err == nil || !strings.Contains(err.Error(), "RFC 8785") || !strings.Contains(err.Error(), "RFC 7493") ||
				!strings.HasPrefix(err.Error(), "data.n: ") || !strings.Contains(err.Error(), "become "+canonical+" ") {
				t.Errorf("%s is an integer no double holds: %v, want a refusal naming RFC 8785, RFC 7493, data.n and %s",
					lit, err, canonical)
			}
			refused++
		}
	}
	if accepted < 80000 || refused < 1000 {
		t.Errorf("%d accepted, %d refused: the sequence no longer tests both sides", accepted, refused)
	}
}

// refusedByIJSON is the rule of issue 44 written with math/big: an integer literal (no '.', no exponent)
// whose value is neither the double it rounds to nor the value of its canonical form.
func refusedByIJSON(t *testing.T, lit, canonical string) bool {
	t.Helper()
	if strings.ContainsAny(lit, ".eE") {
		return false
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		t.Fatalf("%s: %v", lit, err)
	}
	v := exact(t, lit)
	double, _ := new(big.Float).SetFloat64(f).Rat(nil)
	return v.Cmp(double) != 0 && v.Cmp(exact(t, canonical)) != 0
}

// TestIJSONPercent17g: the spellings the issue measured. Every double of the sequence printed with %.17g, as
// C's printf and many JSON writers do to round-trip, is accepted with the same canonical form as its shortest
// spelling (TestIJSONRFC8785 sends the RFC's own values).
func TestIJSONPercent17g(t *testing.T) {
	n := 0
	for _, f := range numberDoubles(12038) {
		lit := fmt.Sprintf("%.17g", f)
		want := strconv.FormatFloat(f, 'g', -1, 64)
		wantOut, err := Canonicalize([]byte(want))
		if err != nil {
			t.Fatal(err)
		}
		got, err := CanonicalizeIJSON([]byte(lit), "data")
		if err != nil || string(got) != string(wantOut) {
			t.Errorf("%s (%%.17g of %s): %s %v, want %s", lit, want, got, err, wantOut)
			continue
		}
		n++
	}
	if n != 12038 {
		t.Errorf("%d of 12038 %%.17g spellings accepted", n)
	}
}

// trailingZero spells d.ddde±x as d.ddd0e±x, the same value.
func trailingZero(e string) string {
	m, x, _ := strings.Cut(e, "e")
	if !strings.Contains(m, ".") {
		m += "."
	}
	return m + "0e" + x
}
