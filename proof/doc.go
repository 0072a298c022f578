// Package proof holds seald's file formats and their offline checks: the proof bundle of a record
// (Bundle), the issuer's trust root (TrustRoot), the selective-disclosure package and presentation
// (DisclosurePackage, Presentation), their SD-JWT form (RFC 9901), and the SD builder that turns a record's
// canonical data into its SD payload and commitment (BuildSD).
//
// It is what a verifier needs and nothing else: it imports no store, no service and no seald package but
// jcs, so that `seald proof verify`, `seald disclose`, the browser-facing code and any third party read and
// check these files with the same code the service writes them with. The service (package seald) makes the
// files from its records and keys; this package never asks it anything.
//
// # Errors
//
// Every refusal of the package (a file that is not of its kind, a member missing or malformed, a signature
// or digest that does not match, a key or contract the issuer does not list) is an *Error, whose message
// names what is wrong and is meant for the person who gave the file. Test for a refusal with errors.As; the
// service maps an *Error to its invalid-input code, since a refusal is always about the input. Any other
// error would be a fault of the package itself.
package proof

import (
	"errors"
	"fmt"
)

// Error is a refusal: the input is not a well-formed file of its kind, or does not check out. Its message is
// safe to show to whoever gave the input.
type Error struct {
	Message string
}

func (e *Error) Error() string { return e.Message }

// refuse returns the *Error of a refusal with a formatted message.
func refuse(format string, args ...any) *Error {
	return &Error{Message: fmt.Sprintf(format, args...)}
}

// IsRefusal reports whether err is, or wraps, a refusal of this package.
func IsRefusal(err error) bool {
	var e *Error
	return errors.As(err, &e)
}
