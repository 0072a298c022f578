// Package openapicheck validates live HTTP traffic against seald's OpenAPI document, for tests: wrap a
// client's transport, run the traffic, then ask which requests or responses disagreed with the document and
// which operations were never exercised. The validation itself is pb33f/libopenapi-validator's (OpenAPI 3.1,
// JSON Schema 2020-12); this package only decides what counts as a mismatch.
package openapicheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/paths"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// Operation is one method on one path of the document.
type Operation struct {
	Method, Path, ID string
}

func (o Operation) String() string { return o.Method + " " + o.Path + " (" + o.ID + ")" }

// Checker validates exchanges and remembers mismatches and the operations it saw.
type Checker struct {
	model      *v3.Document
	validator  validator.Validator
	options    *config.ValidationOptions
	operations []Operation

	// validating serializes the validator: libopenapi renders schemas lazily into shared state, which races
	// when exchanges are checked concurrently (seald seal sends several at once).
	validating sync.Mutex

	mu       sync.Mutex
	problems []string
	seen     map[string]int // operationId -> calls
}

// New parses the document, checks it against the OpenAPI 3.1 specification, and returns a Checker.
func New(doc []byte) (*Checker, error) {
	d, err := libopenapi.NewDocument(doc)
	if err != nil {
		return nil, fmt.Errorf("parsing the document: %w", err)
	}
	m, err := d.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("building the model: %w", err)
	}
	opts := []config.Option{config.WithFormatAssertions()}
	v, errs := validator.NewValidator(d, opts...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		return nil, fmt.Errorf("the document is not valid OpenAPI: %s", describe(verrs))
	}
	ops, err := Operations(doc)
	if err != nil {
		return nil, err
	}
	return &Checker{model: &m.Model, validator: v, options: config.NewValidationOptions(opts...), operations: ops,
		seen: map[string]int{}}, nil
}

// Operations lists the document's operations, sorted by path and method.
func Operations(doc []byte) ([]Operation, error) {
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, err
	}
	var ops []Operation
	for path, item := range d.Paths {
		for method, raw := range item {
			switch method {
			case "get", "put", "post", "delete", "patch", "head", "options", "trace":
			default:
				continue
			}
			var op struct {
				OperationID string `json:"operationId"`
			}
			if err := json.Unmarshal(raw, &op); err != nil || op.OperationID == "" {
				return nil, fmt.Errorf("%s %s has no operationId", method, path)
			}
			ops = append(ops, Operation{Method: strings.ToUpper(method), Path: path, ID: op.OperationID})
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Path != ops[j].Path {
			return ops[i].Path < ops[j].Path
		}
		return ops[i].Method < ops[j].Method
	})
	return ops, nil
}

// Transport returns a RoundTripper that sends through base (nil: http.DefaultTransport) and checks every
// exchange.
func (c *Checker) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return roundTripper{c, base}
}

type roundTripper struct {
	c    *Checker
	base http.RoundTripper
}

func (rt roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		reqBody = b
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	resp, err := rt.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	respBody, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	rt.c.Check(req, reqBody, resp, respBody)
	return resp, nil
}

// Check validates one exchange. A response that disagrees with the document is a problem; so is a request
// that the document forbids but the server accepted (2xx). A request the document forbids and the server
// refused (4xx) is the document and the server agreeing, which is what the bad-input cases are for. A
// request to no operation of the document must be answered 404 or 405 in an error envelope.
func (c *Checker) Check(req *http.Request, reqBody []byte, resp *http.Response, respBody []byte) {
	name := req.Method + " " + req.URL.RequestURI()
	c.validating.Lock()
	defer c.validating.Unlock()
	item, errs, tmpl := paths.FindPath(cloneWith(req, reqBody), c.model, c.options)
	op := operationOf(item, req.Method)
	if item == nil || op == nil {
		c.checkUndocumented(name, errs, resp, respBody)
		return
	}
	c.mu.Lock()
	c.seen[op.OperationId]++
	c.mu.Unlock()

	_, reqErrs := c.validator.ValidateHttpRequestSyncWithPathItem(cloneWith(req, reqBody), item, tmpl)
	r2 := *resp
	r2.Body = io.NopCloser(bytes.NewReader(respBody))
	r2.Header = asText(resp.Header, "X-Request-Id")
	_, respErrs := c.validator.ValidateHttpResponse(cloneWith(req, reqBody), &r2)
	if len(respErrs) > 0 {
		c.fail("%s (%s): response %d does not match the document: %s\nbody: %.400s", name, op.OperationId,
			resp.StatusCode, describe(respErrs), respBody)
	}
	if len(reqErrs) > 0 && resp.StatusCode < 300 {
		c.fail("%s (%s): the server answered %d to a request the document forbids: %s", name, op.OperationId,
			resp.StatusCode, describe(reqErrs))
	}
}

func (c *Checker) checkUndocumented(name string, errs []*verrors.ValidationError, resp *http.Response, body []byte) {
	if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
		c.fail("%s: no operation in the document (%s), yet the server answered %d", name, describe(errs), resp.StatusCode)
		return
	}
	var env map[string]json.RawMessage
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") || json.Unmarshal(body, &env) != nil ||
		string(env["success"]) != "false" {
		c.fail("%s: %d is not a JSON error envelope: %s %.200s", name, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if resp.StatusCode == http.StatusMethodNotAllowed && resp.Header.Get("Allow") == "" {
		c.fail("%s: 405 without Allow", name)
	}
}

func (c *Checker) fail(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// Problems returns the mismatches found so far.
func (c *Checker) Problems() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.problems...)
}

// Missing returns the document's operations not exercised by any checked exchange.
func (c *Checker) Missing() []Operation {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Operation
	for _, o := range c.operations {
		if c.seen[o.ID] == 0 {
			out = append(out, o)
		}
	}
	return out
}

// Operations returns the document's operations.
func (c *Checker) Operations() []Operation { return c.operations }

func cloneWith(req *http.Request, body []byte) *http.Request {
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return r
}

func operationOf(item *v3.PathItem, method string) *v3.Operation {
	if item == nil {
		return nil
	}
	switch method {
	case http.MethodGet:
		return item.Get
	case http.MethodPut:
		return item.Put
	case http.MethodPost:
		return item.Post
	case http.MethodDelete:
		return item.Delete
	case http.MethodPatch:
		return item.Patch
	case http.MethodHead:
		return item.Head
	case http.MethodOptions:
		return item.Options
	}
	return nil
}

func describe(errs []*verrors.ValidationError) string {
	var parts []string
	for _, e := range errs {
		s := e.Message
		if e.Reason != "" {
			s += ": " + e.Reason
		}
		for _, f := range e.SchemaValidationErrors {
			s += fmt.Sprintf(" [%s: %s]", f.FieldPath, f.Reason)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// asText returns h with the named header prefixed by a letter when its value reads as a number or a
// boolean. libopenapi-validator (v0.13.3, helpers.cast) turns such a header value into a number (whatever
// strconv.ParseFloat takes: all decimal digits, or digits around one "e", as a random 24-digit hex request id
// is about once in 25,000) or a boolean, and then fails it against `type: string`. The prefixed value still has to
// match the document's pattern, so the check stays a check.
func asText(h http.Header, name string) http.Header {
	v := h.Get(name)
	if _, err := strconv.ParseFloat(v, 64); err != nil && v != "true" && v != "false" {
		return h
	}
	h = h.Clone()
	h.Set(name, "n"+v)
	return h
}
