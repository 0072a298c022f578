package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// Each judged seald load runs under the CPU profiler, into <out>/profile-<name>.pprof, and the report says
// where its CPU went, so that a missed target's explanation carries the profile of the run that missed it
// (`go tool pprof -top -cum` on the file gives the detail). When a whole-run profile is being taken
// (sealbench --cpuprofile) the Go runtime allows no second one, and the loads go unprofiled.

// profiled runs fn under the CPU profiler and sets the returned load's Profile to the file and its summary.
func profiled(cfg Config, name string, fn func() Load) Load {
	stop := startProfile(cfg, name)
	l := fn()
	l.Profile = stop()
	return l
}

// startProfile starts a CPU profile of the named load; the returned function ends it and returns
// "file: summary", or "" when no profile could be taken.
func startProfile(cfg Config, name string) func() string {
	none := func() string { return "" }
	if cfg.OutDir == "" {
		return none
	}
	path := filepath.Join(cfg.OutDir, "profile-"+name+".pprof")
	f, err := os.Create(path)
	if err != nil {
		return none
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(path)
		return none
	}
	stopped := false
	return func() string {
		if stopped {
			return ""
		}
		stopped = true
		pprof.StopCPUProfile()
		f.Close()
		s, err := summarize(path)
		if err != nil {
			return filepath.Base(path) + " (unreadable: " + err.Error() + ")"
		}
		return filepath.Base(path) + ": " + s
	}
}

// areas name where a sample's time went, by the first frame from the leaf up that belongs to one of them, so
// that a system call counts for the code that made it (a socket write for HTTP, an fsync for SQLite). A
// sample of the load generator's own goroutines (a frame of package bench or of the typed client anywhere in
// its stack: sending requests, reading and decoding answers) counts for the load generator whatever its
// leaf, so that the client's JSON decoding and sockets, which the ceiling's loads pay alike, are not taken
// for seald's. The load generator's connection goroutines of net/http have no such frame and count as HTTP.
var areas = []struct{ prefix, name string }{
	{"modernc.org/sqlite", "SQLite"},
	{"modernc.org/libc", "SQLite"},
	{"github.com/jackc/pgx", "the PostgreSQL client"},
	{"github.com/cockroachdb/pebble", "pebble (IPFS blocks)"},
	{"github.com/ethereum/go-ethereum", "the embedded chain"},
	{"encoding/json", "JSON"},
	{"seald.dev/seald/jcs", "canonical hashing"},
	{"crypto/", "cryptography"},
	{"golang.org/x/crypto", "cryptography"},
	{"net/http", "HTTP and loopback sockets"},
	{"net.", "HTTP and loopback sockets"},
	{"bufio.", "HTTP and loopback sockets"},
	{"seald.dev/seald", "seald's own code"},
	{"runtime.gc", "garbage collection"},
	{"runtime.mallocgc", "allocation"},
}

// summarize reads a CPU profile and says which areas took at least 5% of its samples, largest first.
func summarize(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return "", err
	}
	vi := len(p.SampleType) - 1 // cpu nanoseconds
	by := map[string]int64{}
	var total int64
	for _, s := range p.Sample {
		v := s.Value[vi]
		total += v
		by[area(s)] += v
	}
	if total == 0 {
		return "no samples", nil
	}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return int(by[b] - by[a]) })
	var parts []string
	for _, n := range names {
		if share := float64(by[n]) / float64(total); share >= 0.05 {
			parts = append(parts, fmt.Sprintf("%.0f%% %s", 100*share, n))
		}
	}
	return fmt.Sprintf("%.1f CPU s: %s", float64(total)/1e9, strings.Join(parts, ", ")), nil
}

// loadGenerator are the packages whose frames make a sample the load generator's.
var loadGenerator = []string{"seald.dev/seald/bench.", "seald.dev/seald/client."}

func area(s *profile.Sample) string {
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function == nil {
				continue
			}
			for _, p := range loadGenerator {
				if strings.HasPrefix(line.Function.Name, p) {
					return "the load generator"
				}
			}
		}
	}
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function == nil {
				continue
			}
			name := line.Function.Name
			for _, a := range areas {
				if strings.HasPrefix(name, a.prefix) {
					return a.name
				}
			}
		}
	}
	return "the Go runtime (scheduler, GC)"
}
