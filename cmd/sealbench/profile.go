package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles starts a CPU profile into cpuFile and arranges an allocation profile into memFile (either may
// be empty); the returned function stops and writes them. `sealbench` takes them so that a figure that
// misses its target can be explained from the same run (`go tool pprof`).
func startProfiles(cpuFile, memFile string) (stop func(), err error) {
	var cpu *os.File
	if cpuFile != "" {
		if cpu, err = os.Create(cpuFile); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		if err = pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			cpu.Close()
		}
		if memFile == "" {
			return
		}
		f, err := os.Create(memFile)
		if err != nil {
			return
		}
		defer f.Close()
		runtime.GC() // up-to-date statistics
		_ = pprof.Lookup("allocs").WriteTo(f, 0)
	}, nil
}
