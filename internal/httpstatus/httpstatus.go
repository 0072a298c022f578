// Package httpstatus is the one table from seald's error codes to HTTP status codes, shared by the API
// (httpapi), the console and the public page, so that a code means the same status wherever it is answered.
// What each answers in its body (the API's message, a page's words for a person) stays with each.
package httpstatus

import (
	"net/http"

	"seald.dev/seald"
)

// Table maps every code of seald.Codes to its HTTP status (TestEveryCode).
var Table = map[seald.Code]int{
	seald.EINVALID:      http.StatusBadRequest,
	seald.EUNAUTHORIZED: http.StatusUnauthorized,
	seald.ENOTFOUND:     http.StatusNotFound,
	seald.EGONE:         http.StatusGone,
	seald.ECONFLICT:     http.StatusConflict,
	seald.ETOOLARGE:     http.StatusRequestEntityTooLarge,
	seald.EUNSUPPORTED:  http.StatusUnsupportedMediaType,
	seald.ERATELIMIT:    http.StatusTooManyRequests,
	seald.EUNAVAILABLE:  http.StatusServiceUnavailable,
	seald.EOVERLOADED:   http.StatusServiceUnavailable,
	seald.EINTERNAL:     http.StatusInternalServerError,
}

// Of is the status of an error's code: 500 for a code not in Table (an error that is not a *seald.Error
// is EINTERNAL).
func Of(err error) int {
	if s, ok := Table[seald.ErrorCode(err)]; ok {
		return s
	}
	return http.StatusInternalServerError
}
