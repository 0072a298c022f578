package seald

import (
	"errors"
	"fmt"

	"seald.dev/seald/proof"
)

// Code says what kind of failure an Error is. The codes are few and fixed, so that each can map to exactly one
// HTTP status: the one table lives in package internal/httpstatus, used by the API, the console and the
// public page alike, and a test there fails when a code of Codes has none.
type Code string

// Error codes, with the HTTP status each maps to.
const (
	EINVALID      Code = "invalid"      // the caller's input is malformed or breaks a rule, a forbidden status change included (400)
	EUNAUTHORIZED Code = "unauthorized" // missing, unknown or mismatched credentials, or no caller at all (401)
	ENOTFOUND     Code = "not_found"    // nothing visible to the caller under that identifier (404)
	// ECONFLICT is a change that collides with what is stored: a name another business has, a row another
	// writer changed first (which the Service reads again and retries before giving up), a key that exists.
	ECONFLICT    Code = "conflict"     // (409)
	EGONE        Code = "gone"         // it existed and was removed for good (an erased record's data) (410)
	ETOOLARGE    Code = "too_large"    // a body or value over its limit (413)
	EUNSUPPORTED Code = "unsupported"  // an unsupported media type (415)
	ERATELIMIT   Code = "rate_limited" // over the caller's rate limit (429)
	EUNAVAILABLE Code = "unavailable"  // a dependency is down; the caller may retry (503)
	EOVERLOADED  Code = "overloaded"   // too much work waits (backlog, password hashing): the request was not accepted; retry later (503)
	EINTERNAL    Code = "internal"     // anything else; never shown to a caller in detail (500)
)

// Codes are every error code of the domain, for the tests that check each has its HTTP status.
var Codes = []Code{EINVALID, EUNAUTHORIZED, ENOTFOUND, ECONFLICT, EGONE, ETOOLARGE, EUNSUPPORTED, ERATELIMIT,
	EUNAVAILABLE, EOVERLOADED, EINTERNAL}

// Error is the one error type of seald. Code says what kind of failure it is, Message is safe to show to an
// API caller, Op names the operation for logs, and Err keeps the cause. An *Error found in a chain may be
// shared (ErrNoCaller, ErrWrongPassword, a store's answer): annotate a copy, never the one found.
type Error struct {
	Code    Code
	Op      string
	Message string
	Err     error
}

func (e *Error) Error() string {
	var s string
	if e.Op != "" {
		s = e.Op + ": "
	}
	if e.Message != "" {
		s += e.Message
	} else if e.Code != "" {
		s += string(e.Code)
	}
	if e.Err != nil {
		if s != "" {
			s += ": "
		}
		s += e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the code and a formatted message meant for the caller.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINVALID for a refusal of package proof (a
// file or value the caller gave that is not of its kind or does not check out), EINTERNAL for any other
// non-nil error and "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e.Code != "" {
		return e.Code
	}
	if e == nil && proof.IsRefusal(err) {
		return EINVALID
	}
	return EINTERNAL
}

// ErrorMessage returns the caller-safe message of err: the Message of its first *Error, or a generic text for
// internal errors so that no internal detail leaks.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e.Code != EINTERNAL && e.Message != "" {
		return e.Message
	}
	var r *proof.Error
	if e == nil && errors.As(err, &r) {
		return r.Message
	}
	return "internal error"
}

// permanentError marks a failure that retrying cannot mend (a rejected address, a reverted transaction).
type permanentError struct{ err error }

func (p permanentError) Error() string { return p.err.Error() }
func (p permanentError) Unwrap() error { return p.err }

// Permanent wraps err so that the pipeline fails the step at once instead of retrying it. Adapters use it for
// faults that retrying cannot mend; every other error a step returns is retried with backoff.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// IsPermanent reports whether err (or its cause) was marked with Permanent.
func IsPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}
