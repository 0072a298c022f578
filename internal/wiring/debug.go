//go:build !soak

package wiring

import "net/http"

// withDebug returns the API as it is: only soak builds (debug_soak.go) add a debug endpoint.
func withDebug(h http.Handler) http.Handler { return h }
