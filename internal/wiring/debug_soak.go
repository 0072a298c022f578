//go:build soak

package wiring

import (
	"encoding/json"
	"net/http"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"unsafe"
)

// soakMetrics are the runtime/metrics memory classes /debug/soak reports, so that the soak can tell memory
// the Go runtime holds (heap, stacks, its own metadata) from memory held outside it (C allocations of cgo
// libraries, mmaps of other packages), which only /proc shows.
var soakMetrics = []string{
	"/memory/classes/total:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/stacks:bytes",
	"/memory/classes/os-stacks:bytes",
	"/memory/classes/metadata/other:bytes",
	"/memory/classes/other:bytes",
	"/memory/classes/profiling/buckets:bytes",
	"/gc/heap/goal:bytes",
}

// withDebug adds GET /debug/soak to the API in soak builds only (the soak test samples it): the process's
// goroutine count, heap figures and the runtime's memory classes, which /proc does not show. Production
// builds never serve it.
func withDebug(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/soak", func(w http.ResponseWriter, r *http.Request) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		out := map[string]uint64{
			"goroutines": uint64(runtime.NumGoroutine()), "heap_alloc": m.HeapAlloc, "heap_sys": m.HeapSys,
			"num_gc": uint64(m.NumGC),
		}
		// The address of a fresh heap object tells the soak which mapping holds the Go heap's arenas: since
		// Go 1.26 their base address is randomized, no longer 0xc000000000.
		out["heap_addr"] = uint64(uintptr(unsafe.Pointer(new([1 << 10]byte))))
		s := make([]metrics.Sample, len(soakMetrics))
		for i, n := range soakMetrics {
			s[i].Name = n
		}
		metrics.Read(s)
		for _, x := range s {
			if x.Value.Kind() == metrics.KindUint64 {
				// "/memory/classes/heap/objects:bytes" -> "memory_classes_heap_objects"
				k := strings.TrimPrefix(strings.SplitN(x.Name, ":", 2)[0], "/")
				out[strings.NewReplacer("/", "_", "-", "_").Replace(k)] = x.Value.Uint64()
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
	// The heap profile, for what grows on the Go heap (go tool pprof reads it).
	mux.HandleFunc("GET /debug/soak/heap", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		_ = pprof.Lookup("heap").WriteTo(w, 0)
	})
	mux.Handle("/", h)
	return mux
}
