//go:build tools

// Package tools pins the mailpit SMTP server that the integration tests of package mail deliver to; the
// binary is built by scripts/peers.sh from this module, at the version in go.mod.
package tools

import _ "github.com/axllent/mailpit"
