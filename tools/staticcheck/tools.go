//go:build tools

// Package tools pins staticcheck, which `make test` runs over the repository: scripts/staticcheck.sh builds
// it from this module into the peers cache, as scripts/peers.sh does for the peer programs.
package tools

import _ "honnef.co/go/tools/cmd/staticcheck"
