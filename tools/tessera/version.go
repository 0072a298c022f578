package main

import "runtime/debug"

// version is the Tessera module version this binary was built with.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/transparency-dev/tessera" {
				return d.Version
			}
		}
	}
	return "unknown"
}
