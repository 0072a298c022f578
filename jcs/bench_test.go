package jcs_test

import (
	"crypto/sha256"
	"testing"

	cyberphone "github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
	"github.com/go-json-experiment/json/jsontext"
	gowebpki "github.com/gowebpki/jcs"

	"seald.dev/seald/jcs"
)

// benchSizes are the inputs of issue 8, item 6: one shared generated object per size.
var benchSizes = []struct {
	name string
	size int
}{{"1KB", 1 << 10}, {"10KB", 10 << 10}, {"1MB", 1 << 20}}

// benchEach runs f on Sample(size) for each size, reporting MB/s of input.
func benchEach(b *testing.B, f func(b *testing.B, src []byte)) {
	for _, s := range benchSizes {
		src := jcs.Sample(s.size)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			f(b, src)
		})
	}
}

// BenchmarkCanonicalize measures this package, writing into a reused buffer as the service does.
func BenchmarkCanonicalize(b *testing.B) {
	benchEach(b, func(b *testing.B, src []byte) {
		buf := make([]byte, 0, 2*len(src))
		for b.Loop() {
			var err error
			buf, err = jcs.AppendCanonical(buf[:0], src)
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSum measures what the service runs per record: canonical form and SHA-256.
func BenchmarkSum(b *testing.B) {
	benchEach(b, func(b *testing.B, src []byte) {
		for b.Loop() {
			if _, err := jcs.Sum(src); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSHA256 is the ceiling: hashing the raw bytes with no canonicalization at all.
func BenchmarkSHA256(b *testing.B) {
	benchEach(b, func(b *testing.B, src []byte) {
		for b.Loop() {
			sha256.Sum256(src)
		}
	})
}

// BenchmarkJSONText measures github.com/go-json-experiment/json/jsontext Value.Canonicalize, the fastest Go
// RFC 8785 implementation found (it is the future encoding/json/v2's).
func BenchmarkJSONText(b *testing.B) {
	benchEach(b, func(b *testing.B, src []byte) {
		v := make(jsontext.Value, 0, 2*len(src))
		for b.Loop() {
			v = append(v[:0], src...)
			if err := v.Canonicalize(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkGowebpki measures github.com/gowebpki/jcs, the most imported Go JCS module.
func BenchmarkGowebpki(b *testing.B) {
	benchEach(b, func(b *testing.B, src []byte) {
		for b.Loop() {
			if _, err := gowebpki.Transform(src); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCyberphone measures the RFC authors' own Go implementation.
func BenchmarkCyberphone(b *testing.B) {
	benchEach(b, func(b *testing.B, src []byte) {
		for b.Loop() {
			if _, err := cyberphone.Transform(src); err != nil {
				b.Fatal(err)
			}
		}
	})
}
