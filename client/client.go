// Package client is a Go client of seald's HTTP API: one typed method per operation of /openapi.json, the
// seed's envelopes decoded, failures returned as *Error. It depends on the standard library only, so that a
// third party can vendor it without the service.
//
//	c := client.New("https://seald.example.com", client.WithKeys(subscriptionKey, apiKey))
//	res, err := c.Authenticate(ctx, client.Polygon, &client.AuthenticationRequest{
//		Data: json.RawMessage(`{"invoice":"INV-1"}`), To: "alice@example.com"})
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client calls one seald service. It is safe for concurrent use.
type Client struct {
	base       string
	sub, api   string
	hc         *http.Client
	retries    int
	maxBackoff time.Duration
	userAgent  string
}

// Option configures a Client.
type Option func(*Client)

// WithKeys sets the two keys every authenticated operation sends: the business's subscription key
// (Ocp-Apim-Subscription-Key) and the project's API key (Api-Key).
func WithKeys(subscriptionKey, apiKey string) Option {
	return func(c *Client) { c.sub, c.api = subscriptionKey, apiKey }
}

// WithHTTPClient sets the http.Client used (default: one with a 60 s timeout).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithRetry retries a call answered 429 (rate limit), or 503 with X-Seald-Backpressure (the backlog is full
// or password hashing is at capacity: nothing was accepted), up to n times, each after the Retry-After the
// service gave (at most max, default 30 s), as long as the call's context allows. Without it, those answers are returned as *Error. Other 503s
// are not retried: a seal they answer may have been stored.
func WithRetry(n int, max time.Duration) Option {
	return func(c *Client) {
		c.retries = n
		if max > 0 {
			c.maxBackoff = max
		}
	}
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// New returns a client of the service at baseURL (scheme and host, and a path prefix if the service is
// mounted under one).
func New(baseURL string, opts ...Option) *Client {
	c := &Client{base: strings.TrimRight(baseURL, "/"), hc: &http.Client{Timeout: 60 * time.Second},
		maxBackoff: 30 * time.Second, userAgent: "seald-client/1"}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Error is a call the service answered with an error status: the status, the envelope's message, and the
// request id to quote when asking about it (it names the service's log line).
type Error struct {
	StatusCode int
	Message    string
	RequestID  string
	// RetryAfter is the wait the service asked for with a 429 or a 503 (zero otherwise).
	RetryAfter time.Duration
	// Backpressure: the 503 refused the request because too much work waits (X-Seald-Backpressure: the
	// backlog, or password hashing at capacity), so nothing of it was accepted and it may be sent again.
	Backpressure bool
}

func (e *Error) Error() string {
	s := fmt.Sprintf("seald: %d %s: %s", e.StatusCode, http.StatusText(e.StatusCode), e.Message)
	if e.RequestID != "" {
		s += " (request " + e.RequestID + ")"
	}
	return s
}

// IsNotFound reports whether err is the service's 404: nothing with that identifier is visible to the caller.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.StatusCode == http.StatusNotFound
}

// envelope is both of the seed's envelopes: the verification one has no error member and carries its
// message in data.
type envelope struct {
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data"`
	Error   *string         `json:"error"`
}

// request is one call: the method, path with query, optional JSON body and extra headers.
type request struct {
	method, path string
	query        url.Values
	body         []byte
	header       http.Header
	auth         bool
	whole        bool // the answer is not in an envelope: decode it whole
}

// do sends the request (again after a 429 when retries allow) and decodes the envelope's data into out.
func (c *Client) do(ctx context.Context, r request, out any) error {
	for attempt := 0; ; attempt++ {
		err := c.once(ctx, r, out)
		var e *Error
		if !errors.As(err, &e) || !(e.StatusCode == http.StatusTooManyRequests || e.Backpressure) || attempt >= c.retries {
			return err
		}
		wait := min(max(e.RetryAfter, 100*time.Millisecond), c.maxBackoff)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

func (c *Client) once(ctx context.Context, r request, out any) error {
	u := c.base + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, body)
	if err != nil {
		return err
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	if r.auth {
		req.Header.Set("Ocp-Apim-Subscription-Key", c.sub)
		req.Header.Set("Api-Key", c.api)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("seald: reading the answer to %s %s: %w", r.method, r.path, err)
	}
	var env envelope
	jsonErr := json.Unmarshal(raw, &env)
	if resp.StatusCode >= 300 {
		return errorOf(resp, raw, &env, jsonErr)
	}
	if r.whole {
		return json.Unmarshal(raw, out)
	}
	if jsonErr != nil {
		return fmt.Errorf("seald: %s %s answered %d with a body that is not the JSON envelope: %w", r.method, r.path,
			resp.StatusCode, jsonErr)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		return fmt.Errorf("seald: decoding the data of %s %s: %w", r.method, r.path, err)
	}
	return nil
}

// errorOf makes the *Error of a failed call; the message is the envelope's, whichever of the two it is.
func errorOf(resp *http.Response, raw []byte, env *envelope, jsonErr error) *Error {
	e := &Error{StatusCode: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id")}
	switch {
	case jsonErr != nil:
		e.Message = strings.TrimSpace(string(raw))
		if len(e.Message) > 200 {
			e.Message = e.Message[:200]
		}
	case env.Error != nil:
		e.Message = *env.Error
	default:
		var s string
		if json.Unmarshal(env.Data, &s) == nil {
			e.Message = s
		} else {
			e.Message = string(env.Data) // readyz's checks
		}
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs >= 0 {
		e.RetryAfter = time.Duration(secs) * time.Second
	}
	e.Backpressure = resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("X-Seald-Backpressure") != ""
	return e
}

// jsonBody marshals v, except that JSON already encoded (json.RawMessage or []byte) is sent as it is.
func jsonBody(v any) ([]byte, error) {
	switch b := v.(type) {
	case json.RawMessage:
		return b, nil
	case []byte:
		return b, nil
	}
	return json.Marshal(v)
}
