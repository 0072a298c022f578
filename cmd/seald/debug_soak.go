//go:build soak

package main

import (
	"encoding/json"
	"net/http"
	"runtime"
)

// withDebug adds GET /debug/soak to the API in soak builds only (the soak test samples it): the process's
// goroutine count and heap figures, which /proc does not show. Production builds never serve it.
func withDebug(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/soak", func(w http.ResponseWriter, r *http.Request) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]uint64{
			"goroutines": uint64(runtime.NumGoroutine()), "heap_alloc": m.HeapAlloc, "heap_sys": m.HeapSys,
			"num_gc": uint64(m.NumGC),
		})
	})
	mux.Handle("/", h)
	return mux
}
