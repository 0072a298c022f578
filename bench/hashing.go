package bench

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math"
	"strconv"
	"time"

	cyberphone "github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
	"github.com/go-json-experiment/json/jsontext"
	gowebpki "github.com/gowebpki/jcs"

	"seald.dev/seald/jcs"
)

// Canonicalizer names in the jcs section. Every "hashing" figure is canonical form plus SHA-256, what a
// record costs; the jsontext figure is the fastest other Go RFC 8785 implementation found (the future
// encoding/json/v2's), the baseline of the target.
const (
	ImplSeald         = "seald jcs.Sum"
	ImplSealdCanon    = "seald canonical only"
	ImplJSONText      = "jsontext + SHA-256"
	ImplJSONTextCanon = "jsontext canonical only"
	ImplGowebpki      = "gowebpki/jcs + SHA-256"
	ImplCyberphone    = "cyberphone + SHA-256"
	ImplSHA256        = "raw SHA-256"
)

// JCSRun is the canonical hashing section.
type JCSRun struct {
	// Checks are the RFC 8785 examples run against seald's canonicalizer before any timing; the section
	// fails if one fails.
	Checks      []Check `json:"rfc8785_checks"`
	JSONTextRFC string  `json:"jsontext_rfc8785,omitempty"` // the same checks on jsontext, for information
	Sizes       []JCSSize
}

// Check is one RFC 8785 example.
type Check struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail,omitempty"`
}

// JCSSize is every canonicalizer on one input.
type JCSSize struct {
	Name  string             `json:"name"`
	Bytes int                `json:"bytes"`
	MBps  map[string]float64 `json:"mb_per_second"`
	// SameOutput says whether jsontext's and gowebpki's canonical forms equal seald's on this input.
	SameOutput bool `json:"same_output_as_others"`
}

func runJCS(cfg Config) (*JCSRun, error) {
	run := &JCSRun{Checks: rfcChecks(jcs.Canonicalize)}
	for _, c := range run.Checks {
		if !c.Passed {
			return run, fmt.Errorf("RFC 8785 check %s failed: %s", c.Name, c.Detail)
		}
	}
	passed, checks := 0, rfcChecks(jsontextCanon)
	for _, c := range checks {
		if c.Passed {
			passed++
		}
	}
	run.JSONTextRFC = fmt.Sprintf("%d of %d checks pass", passed, len(checks))

	for _, s := range []struct {
		name string
		size int
	}{{"1 KB", 1 << 10}, {"10 KB", 10 << 10}, {"1 MB", 1 << 20}} {
		src := jcs.Sample(s.size)
		mine, err := jcs.Canonicalize(src)
		if err != nil {
			return run, err
		}
		theirs, err1 := jsontextCanon(src)
		web, err2 := gowebpki.Transform(src)
		size := JCSSize{Name: s.name, Bytes: len(src), MBps: map[string]float64{},
			SameOutput: err1 == nil && err2 == nil && bytes.Equal(mine, theirs) && bytes.Equal(mine, web)}
		buf := make([]byte, 0, 2*len(src))
		val := make(jsontext.Value, 0, 2*len(src))
		impls := []struct {
			name string
			f    func() error
		}{
			{ImplSeald, func() error { _, err := jcs.Sum(src); return err }},
			{ImplSealdCanon, func() error { var err error; buf, err = jcs.AppendCanonical(buf[:0], src); return err }},
			{ImplJSONText, func() error {
				val = append(val[:0], src...)
				err := val.Canonicalize()
				sha256.Sum256(val)
				return err
			}},
			{ImplJSONTextCanon, func() error { val = append(val[:0], src...); return val.Canonicalize() }},
			{ImplGowebpki, func() error { b, err := gowebpki.Transform(src); sha256.Sum256(b); return err }},
			{ImplCyberphone, func() error { b, err := cyberphone.Transform(src); sha256.Sum256(b); return err }},
			{ImplSHA256, func() error { sha256.Sum256(src); return nil }},
		}
		// Three rounds, interleaved so drift in the machine's load hits every one alike; the best round counts.
		for range 3 {
			for _, im := range impls {
				mbps, err := throughput(len(src), cfg.JCSTime, im.f)
				if err != nil {
					return run, fmt.Errorf("%s on %s: %w", im.name, s.name, err)
				}
				size.MBps[im.name] = math.Max(size.MBps[im.name], mbps)
			}
		}
		fmt.Fprintf(cfg.Log, "bench: jcs %s: seald %.0f MB/s, jsontext %.0f MB/s, SHA-256 %.0f MB/s\n",
			s.name, size.MBps[ImplSeald], size.MBps[ImplJSONText], size.MBps[ImplSHA256])
		run.Sizes = append(run.Sizes, size)
	}
	return run, nil
}

// throughput runs f for at least d and returns MB/s (10^6 bytes) of n-byte inputs.
func throughput(n int, d time.Duration, f func() error) (float64, error) {
	if err := f(); err != nil {
		return 0, err
	}
	iters := 0
	start := time.Now()
	for {
		for range 8 {
			if err := f(); err != nil {
				return 0, err
			}
		}
		iters += 8
		if el := time.Since(start); el >= d {
			return float64(n) * float64(iters) / el.Seconds() / 1e6, nil
		}
	}
}

func jsontextCanon(src []byte) ([]byte, error) {
	v := jsontext.Value(bytes.Clone(src))
	err := v.Canonicalize()
	return v, err
}

// rfcChecks runs the examples of RFC 8785 (section 3.2.2's input and 3.2.3's output, 3.2.3's sorting
// example, and Appendix B's numbers) against a canonicalizer.
func rfcChecks(canon func([]byte) ([]byte, error)) []Check {
	check := func(name, in, want string) Check {
		got, err := canon([]byte(in))
		switch {
		case err != nil:
			return Check{Name: name, Detail: err.Error()}
		case string(got) != want:
			return Check{Name: name, Detail: fmt.Sprintf("got %s, want %s", got, want)}
		}
		return Check{Name: name, Passed: true}
	}
	out := []Check{
		check("3.2.2 sample", rfcSample, rfcSampleCanonical),
		check("3.2.3 sorting", rfcSorting, rfcSortingCanonical),
	}
	for _, c := range appendixB {
		bits, err := strconv.ParseUint(c.bits, 16, 64)
		if err != nil {
			out = append(out, Check{Name: "B " + c.bits, Detail: err.Error()})
			continue
		}
		f := math.Float64frombits(bits)
		out = append(out, check("Appendix B "+c.bits, strconv.FormatFloat(f, 'g', -1, 64), c.want))
	}
	return out
}

const rfcSample = `{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`

const rfcSampleCanonical = `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`

const rfcSorting = `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`

const rfcSortingCanonical = `{"\r":"Carriage Return","1":"One","` + "\u0080" + `":"Control","ö":"Latin Small Letter O With Diaeresis",` +
	`"€":"Euro Sign","😀":"Emoji: Grinning Face","` + "\ufb33" + `":"Hebrew Letter Dalet With Dagesh"}`

// appendixB is RFC 8785 Appendix B: IEEE 754 bit patterns and their serialization.
var appendixB = []struct{ bits, want string }{
	{"0000000000000000", "0"}, {"8000000000000000", "0"}, {"0000000000000001", "5e-324"},
	{"8000000000000001", "-5e-324"}, {"7fefffffffffffff", "1.7976931348623157e+308"},
	{"ffefffffffffffff", "-1.7976931348623157e+308"}, {"4340000000000000", "9007199254740992"},
	{"c340000000000000", "-9007199254740992"}, {"4430000000000000", "295147905179352830000"},
	{"44b52d02c7e14af5", "9.999999999999997e+22"}, {"44b52d02c7e14af6", "1e+23"},
	{"44b52d02c7e14af7", "1.0000000000000001e+23"}, {"444b1ae4d6e2ef4e", "999999999999999700000"},
	{"444b1ae4d6e2ef4f", "999999999999999900000"}, {"444b1ae4d6e2ef50", "1e+21"},
	{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"}, {"3eb0c6f7a0b5ed8d", "0.000001"},
	{"41b3de4355555553", "333333333.3333332"}, {"41b3de4355555554", "333333333.33333325"},
	{"41b3de4355555555", "333333333.3333333"}, {"41b3de4355555556", "333333333.3333334"},
	{"41b3de4355555557", "333333333.33333343"}, {"becbf647612f3696", "-0.0000033333333333333333"},
	{"43143ff3c1cb0959", "1424953923781206.2"},
}
