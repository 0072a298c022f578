package e2e

import (
	"math"
	"math/rand/v2"
	"strconv"
)

// numberInputs are JSON numbers for comparing the page's data check with the server's canonicalizer: random
// doubles over the whole range (as the RFC 8785 author's number test sequence draws them), integers beyond
// 2^53 as JSON.stringify writes them, each in its shortest spelling and in longer ones, some of which denote
// another value than the double (and so are refused on both sides), and the values named in issue 31.
func numberInputs() []string {
	in := []string{"9007199254740992", "-333333333333333400", "1e21", "5e-324", "9007199254740993", "-9007199254740993",
		"1e-400", "0.10000000000000001", "333333333.33333329", "18014398509481985", "100000000000000000001",
		"9007199254740992.000", "-0.0e7", "1.7976931348623157e308", "2.2250738585072014e-308"}
	r := rand.New(rand.NewPCG(8785, 31))
	for len(in) < 6000 {
		f := math.Float64frombits(r.Uint64())
		if r.IntN(2) == 0 {
			f = math.Ldexp(float64(r.Uint64()>>11), r.IntN(38)) * float64(1-2*r.IntN(2))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		in = append(in, strconv.FormatFloat(f, 'g', -1, 64), strconv.FormatFloat(f, 'e', 20, 64),
			"["+strconv.FormatFloat(f, 'f', -1, 64)+"]")
	}
	return in
}
