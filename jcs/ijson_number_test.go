package jcs

import (
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

// TestIJSONNumbers: every spelling of a double that denotes the same value as its shortest round-trip form
// (what JSON.stringify, Go's strconv and every ES6 Number-to-String writes) is accepted by CanonicalizeIJSON
// with the same canonical form plain RFC 8785 gives; a literal with more digits than the double holds is
// refused exactly when its value differs (decided here with math/big), naming RFC 8785, RFC 7493, the member
// and the value it would become. Before issue 31, every integer literal beyond 2^53−1 was refused, a double or
// not (1,998 of 12,038 of the RFC 8785 author's sequence).
func TestIJSONNumbers(t *testing.T) {
	accepted, refused := 0, 0
	for _, f := range numberDoubles(12038) {
		shortest := strconv.FormatFloat(f, 'g', -1, 64)
		want := exact(t, shortest)
		lits := []string{shortest, strconv.FormatFloat(f, 'e', -1, 64), strconv.FormatFloat(f, 'E', 25, 64),
			strconv.FormatFloat(f, 'e', 19, 64), trailingZero(strconv.FormatFloat(f, 'e', -1, 64))}
		if math.Abs(f) < 1e30 && math.Abs(f) > 1e-30 {
			lits = append(lits, strconv.FormatFloat(f, 'f', -1, 64))
		}
		for _, lit := range lits {
			in := `{"n":` + lit + `}`
			plain, err := Canonicalize([]byte(in))
			if err != nil {
				t.Fatalf("plain RFC 8785 refused %s: %v", in, err)
			}
			got, err := CanonicalizeIJSON([]byte(in), "data")
			if exact(t, lit).Cmp(want) == 0 {
				if err != nil || string(got) != string(plain) {
					t.Errorf("%s (the double %s): %s %v, want %s", lit, shortest, got, err, plain)
				}
				accepted++
				continue
			}
			canonical := string(plain[len(`{"n":`) : len(plain)-1])
			if err == nil || !strings.Contains(err.Error(), "RFC 8785") || !strings.Contains(err.Error(), "RFC 7493") ||
				!strings.HasPrefix(err.Error(), "data.n: ") || !strings.Contains(err.Error(), "become "+canonical+" ") {
				t.Errorf("%s is not the double %s: %v, want a refusal naming RFC 8785, RFC 7493, data.n and %s",
					lit, shortest, err, canonical)
			}
			refused++
		}
	}
	if accepted < 40000 || refused < 10000 {
		t.Errorf("%d accepted, %d refused: the sequence no longer tests both sides", accepted, refused)
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
