package jcs_test

import (
	"math"
	"strconv"
	"testing"

	"seald.dev/seald/jcs"
)

// TestIJSONRFC8785: what seald seals with (CanonicalizeIJSON) takes RFC 8785's own test values as the RFC
// does: the sample of section 3.2.2, whose 333333333.33333329 was a 400 before issue 44, and every double of
// Appendix B in every spelling, 17 and 26 digits and full decimal included.
func TestIJSONRFC8785(t *testing.T) {
	got, err := jcs.CanonicalizeIJSON([]byte(rfcSample), "")
	if err != nil || string(got) != rfcSampleText {
		t.Errorf("RFC 8785 section 3.2.2's sample: %s %v, want %s", got, err, rfcSampleText)
	}
	for _, c := range appendixB {
		bits, err := strconv.ParseUint(c.bits, 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		f := math.Float64frombits(bits)
		for _, lit := range append(spellings(f), strconv.FormatFloat(f, 'g', 17, 64)) {
			got, err := jcs.CanonicalizeIJSON([]byte(lit), "data")
			if err != nil || string(got) != c.want {
				t.Errorf("Appendix B %s spelled %s: %s %v, want %s", c.bits, lit, got, err, c.want)
			}
		}
	}
}
