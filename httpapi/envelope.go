package httpapi

import (
	"maps"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"seald.dev/seald/internal/httpstatus"
	"strconv"
	"strings"
	"sync"

	"seald.dev/seald"
)

// The seed has two envelopes. The five verification operations answer {"success", "data"} with data holding
// the error message on failure; every other operation answers {"success", "data", "error"}.
type envelope int

const (
	plainEnvelope  envelope = iota // {"success","data","error"}
	verifyEnvelope                 // {"success","data"}
)

// verifyPrefix is the path prefix of the operations that use the verification envelope.
const verifyPrefix = "/verification/api/v1/verify/"

// envelopeFor picks the envelope of a path, so that errors raised before a handler runs (401, 404, 405,
// 413, 415, 429) still come in the envelope of the operation the client called.
func envelopeFor(path string) envelope {
	if strings.HasPrefix(path, verifyPrefix) {
		return verifyEnvelope
	}
	return plainEnvelope
}

type plainBody struct {
	Success bool    `json:"success"`
	Data    any     `json:"data"`
	Error   *string `json:"error"`
}

type verifyBody struct {
	Success bool `json:"success"`
	Data    any  `json:"data"`
}

// StatusClientGone is the status counted for a request whose client went away before its answer.
const StatusClientGone = 499

// BackpressureRetryAfter is the Retry-After, in seconds, of a seal refused because the backlog is full.
const BackpressureRetryAfter = 5

// codeMethod is the HTTP layer's own error code for a known path called with the wrong method: the domain
// has no methods, so it is not one of seald.Codes.
const codeMethod seald.Code = "method_not_allowed"

// statusOf is the one table from error codes to HTTP status codes (httpstatus.Table, shared with the console
// and the page) and the HTTP layer's own codeMethod (TestEveryCodeHasAStatus).
var statusOf = func() map[seald.Code]int {
	m := maps.Clone(httpstatus.Table)
	m[codeMethod] = http.StatusMethodNotAllowed
	return m
}()

// bodies are reused encoding buffers: json.Marshal allocates a fresh copy of every answer and appending the
// newline copied it again, two allocations of the answer's size on every request of the hottest paths.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeJSON writes v with the status; every response of the API goes through here. The bytes are those of
// json.Marshal followed by a newline (Encoder.Encode escapes HTML alike).
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := bodies.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 64<<10 { // a rare huge answer is not kept alive by the pool
			bodies.Put(buf)
		}
	}()
	buf.Reset()
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"success":false,"data":null,"error":"internal error"}` + "\n")
	}
	writeBody(w, status, buf.Bytes())
}

// The headers of every answer of the API, shared by all of them: Header.Set made a slice for each, and
// checked each name's spelling, on every request. A full slice (len = cap), so that an Add appends to a
// copy, never into a shared array.
var (
	jsonType = []string{"application/json; charset=utf-8"}[:1:1]
	nosniff  = []string{"nosniff"}[:1:1]
	noStore  = []string{"no-store"}[:1:1]
)

// writeBody writes an encoded JSON answer with the status and the headers of every answer of the API.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"], h["X-Content-Type-Options"], h["Cache-Control"] = jsonType, nosniff, noStore
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeOK writes a success in the envelope of the request's operation.
func writeOK(w http.ResponseWriter, r *http.Request, status int, data any) {
	if envelopeFor(r.URL.Path) == verifyEnvelope {
		writeJSON(w, status, verifyBody{Success: true, Data: data})
		return
	}
	writeJSON(w, status, plainBody{Success: true, Data: data})
}

// writeError writes err in the envelope of the request's operation, with the status of its code. Internal
// errors are logged with their detail and answered with a generic message.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := seald.ErrorCode(err)
	status, ok := statusOf[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	if status >= 500 && errors.Is(r.Context().Err(), context.Canceled) {
		// The client went away, so the work it asked for was cut short: nobody reads this answer and it is
		// not the server's fault. It is counted apart (nginx's 499) and logged at INFO, never as a 5xx.
		s.logger().InfoContext(r.Context(), "client went away", "path", r.URL.Path, "err", err,
			"request_id", requestID(r.Context()))
		w.WriteHeader(StatusClientGone)
		return
	}
	if status >= 500 {
		s.logger().ErrorContext(r.Context(), "request failed", "path", r.URL.Path, "err", err,
			"request_id", requestID(r.Context()))
	}
	var e *seald.Error
	if errors.As(err, &e) && (e.Code == seald.ERATELIMIT || e.Code == seald.EUNAVAILABLE) && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "1")
	}
	if e != nil && e.Code == seald.EOVERLOADED {
		// Backpressure: the request was refused before anything was written, so a client may send it again
		// (the package client does, after Retry-After, when it sees X-Seald-Backpressure).
		w.Header().Set("Retry-After", strconv.Itoa(BackpressureRetryAfter))
		w.Header().Set("X-Seald-Backpressure", "1")
	}
	msg := seald.ErrorMessage(err)
	if envelopeFor(r.URL.Path) == verifyEnvelope {
		writeJSON(w, status, verifyBody{Success: false, Data: msg})
		return
	}
	writeJSON(w, status, plainBody{Success: false, Data: nil, Error: &msg})
}

func (s *Server) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}
