package bench

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"seald.dev/seald"
	"seald.dev/seald/jcs"
)

func TestPercentiles(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 1000; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	got := percentiles(ds)
	if got != (Latency{P50: 500, P95: 950, P99: 990, Max: 1000}) {
		t.Errorf("percentiles of 1..1000 ms: %+v", got)
	}
	if one := percentiles([]time.Duration{3 * time.Millisecond}); one.P50 != 3 || one.P99 != 3 {
		t.Errorf("one sample: %+v", one)
	}
	if none := percentiles(nil); none != (Latency{}) {
		t.Errorf("no samples: %+v", none)
	}
}

// The ceiling answers exactly the bytes it was given, with the status, whatever the request.
func TestStaticBody(t *testing.T) {
	body := []byte(`{"success":true,"data":{"reference":"D-x","hash":"h"},"error":null}`)
	for _, path := range []string{"/", "/verification/api/v1/verify/hash?hash=x"} {
		w := httptest.NewRecorder()
		staticBody(http.StatusCreated, body).ServeHTTP(w, httptest.NewRequest("POST", path, bytes.NewReader([]byte("{}"))))
		if w.Code != http.StatusCreated || !bytes.Equal(w.Body.Bytes(), body) || w.Header().Get("Content-Length") != strconv.Itoa(len(body)) {
			t.Errorf("%s: status %d, body %q", path, w.Code, w.Body.Bytes())
		}
	}
}

// The RFC 8785 checks pass on seald's canonicalizer and catch one that does not canonicalize.
func TestRFCChecks(t *testing.T) {
	for _, c := range rfcChecks(jcs.Canonicalize) {
		if !c.Passed {
			t.Errorf("%s: %s", c.Name, c.Detail)
		}
	}
	failed := 0
	for _, c := range rfcChecks(func(b []byte) ([]byte, error) { return b, nil }) {
		if !c.Passed {
			failed++
		}
	}
	if failed < 2 {
		t.Errorf("the identity passes all but %d checks", failed)
	}
}

// Preloaded references are valid and ascend with their number.
func TestPreloadReference(t *testing.T) {
	prev := ""
	for _, i := range []int{0, 1, 255, 256, 70000, 1000000} {
		r := preloadReference(i)
		if err := seald.ParseReference(r); err != nil {
			t.Fatalf("%d: %s: %v", i, r, err)
		}
		if r <= prev {
			t.Errorf("%s after %s", r, prev)
		}
		prev = r
	}
}

// A verification run at one connection count (--conns 1) has a log axis gonum/plot cannot draw, and it panics:
// the plot is left out and the report goes on (the bench crashed after its figures before).
func TestPlotsOfOneConnectionCount(t *testing.T) {
	one := []Load{{Conns: 1, Requests: 10, Seconds: 1, Rate: 10}}
	r := &Report{Verify: []*VerifyRun{{Store: "sqlite", ByHash: one, ByReference: one, Ceiling: one}}}
	got := plots(r, t.TempDir())
	for _, name := range got {
		if name == "throughput.png" {
			t.Errorf("plots = %v: a throughput plot of one connection count", got)
		}
	}
}

// A sample counts for the area of its first frame from the leaf up that has one, and for the load generator
// whenever a frame of the load generator is in its stack, whatever its leaf.
func TestProfileArea(t *testing.T) {
	sample := func(names ...string) *profile.Sample {
		s := &profile.Sample{}
		for _, n := range names {
			s.Location = append(s.Location, &profile.Location{Line: []profile.Line{{Function: &profile.Function{Name: n}}}})
		}
		return s
	}
	for _, c := range []struct {
		stack []string
		want  string
	}{
		{[]string{"syscall.Syscall6", "net.(*conn).Write", "net/http.(*conn).serve"}, "HTTP and loopback sockets"},
		{[]string{"encoding/json.(*decodeState).object", "encoding/json.Unmarshal", "seald.dev/seald/client.(*Client).do",
			"seald.dev/seald/bench.closedLoop.func1"}, "the load generator"},
		{[]string{"encoding/json.(*encodeState).marshal", "seald.dev/seald/httpapi.writeJSON", "net/http.(*conn).serve"}, "JSON"},
		{[]string{"crypto/sha256.block", "seald.dev/seald/jcs.Sum", "seald.dev/seald.(*Service).Seal"}, "cryptography"},
		{[]string{"seald.dev/seald/jcs.Canonicalize", "seald.dev/seald.(*Service).Seal"}, "canonical hashing"},
		{[]string{"seald.dev/seald/httpapi.(*Server).verificationResult", "net/http.(*conn).serve"}, "seald's own code"},
		{[]string{"runtime.futex", "runtime.schedule"}, "the Go runtime (scheduler, GC)"},
	} {
		if got := area(sample(c.stack...)); got != c.want {
			t.Errorf("%v: %s, want %s", c.stack, got, c.want)
		}
	}
}
