package seald_test

import (
	"strings"
	"testing"

	"seald.dev/seald"
)

func FuzzQueryParameters(f *testing.F) {
	for _, s := range []string{"1", "0", "00", "115792089237316195423570985008687907853269984665640564039457584007913129639935",
		"115792089237316195423570985008687907853269984665640564039457584007913129639936", "-1", "0x1",
		"D-0b9c2f1e-5d7a-4c3b-8a9e-1f2d3c4b5a69", "I-0B9C2F1E-5D7A-4C3B-8A9E-1F2D3C4B5A69", "eos", "POLYGON"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, ok, err := seald.ParseTokenID(s)
		if err == nil && ok && id == 0 {
			t.Fatal("token id 0 accepted as a seald token")
		}
		if err != nil && seald.ErrorCode(err) != seald.EINVALID {
			t.Fatal(err)
		}
		if err := seald.ParseReference(s); err == nil && (len(s) != 38 || strings.ToLower(s[2:]) != s[2:]) {
			t.Fatalf("reference %q accepted", s)
		}
		if n, err := seald.ParseNetwork(s); err == nil && n != seald.NetworkPolygon && n != seald.NetworkEOS {
			t.Fatalf("network %q", n)
		}
	})
}
