package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Paths of the operations, as in /openapi.json.
const (
	pathVerify     = "/verification/api/v1/verify/"
	pathSeal       = "/svc-data/data/authentication/ipfs/sm-%s/email"
	pathStatus     = "/authentication-status/get/status"
	pathUpdate     = "/authentication-status/update/status"
	pathGenerate   = "/svc-file/api/v1/ovi/generator"
	pathDownload   = "/svc-data/data/download"
	pathDisclose   = "/verification/api/v1/disclosure"
	pathCredential = "/verification/api/v1/credential"
	pathPublicKey  = "/.well-known/seald-key"
)

// VerifyOption changes a verification call.
type VerifyOption func(url.Values)

// IncludeProof asks for the record's offline proof bundle (Verification.Proof).
func IncludeProof() VerifyOption { return func(q url.Values) { q.Set("proof", "1") } }

func (c *Client) verifyGet(ctx context.Context, op string, q url.Values, opts []VerifyOption) (*Verification, error) {
	for _, o := range opts {
		o(q)
	}
	var v Verification
	if err := c.do(ctx, request{method: http.MethodGet, path: pathVerify + op, query: q, auth: true}, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// VerifyReference looks a record up by its reference (D- or I-).
func (c *Client) VerifyReference(ctx context.Context, reference string, opts ...VerifyOption) (*Verification, error) {
	return c.verifyGet(ctx, "reference", url.Values{"reference": {reference}}, opts)
}

// VerifyHash looks the newest record of a hash up: SHA-256 of the RFC 8785 canonical form of the data.
func (c *Client) VerifyHash(ctx context.Context, hash string, opts ...VerifyOption) (*Verification, error) {
	return c.verifyGet(ctx, "hash", url.Values{"hash": {hash}}, opts)
}

// VerifyCID looks a record up by the CID of its stored (encrypted) copy.
func (c *Client) VerifyCID(ctx context.Context, cid string, opts ...VerifyOption) (*Verification, error) {
	return c.verifyGet(ctx, "cid", url.Values{"cid": {cid}}, opts)
}

// VerifyTokenID looks a record up by its ERC-721 token id on a network (Polygon or EOS; "" is Polygon).
func (c *Client) VerifyTokenID(ctx context.Context, network, tokenID string, opts ...VerifyOption) (*Verification, error) {
	q := url.Values{"token_id": {tokenID}}
	if network != "" {
		q.Set("blockchain", network)
	}
	return c.verifyGet(ctx, "token-id", q, opts)
}

// VerifyOVI looks a generator record up by its encrypted reference (encrypted_ovi).
func (c *Client) VerifyOVI(ctx context.Context, ovi string, opts ...VerifyOption) (*Verification, error) {
	return c.verifyGet(ctx, "ovi", url.Values{"ovi": {ovi}}, opts)
}

// VerifyData looks the newest record of the data itself up. data is a JSON object: a json.RawMessage or
// []byte is sent as it is, anything else is marshalled.
func (c *Client) VerifyData(ctx context.Context, data any, opts ...VerifyOption) (*Verification, error) {
	body, err := dataBody(data)
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	for _, o := range opts {
		o(q)
	}
	var v Verification
	err = c.do(ctx, request{method: http.MethodPost, path: pathVerify + "data", query: q, body: body, auth: true}, &v)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// dataBody is {"data": data}.
func dataBody(data any) ([]byte, error) {
	raw, err := jsonBody(data)
	if err != nil {
		return nil, fmt.Errorf("seald: encoding data: %w", err)
	}
	return json.Marshal(struct {
		Data json.RawMessage `json:"data"`
	}{raw})
}

// Authenticate seals req.Data on a network (Polygon or EOS; "" is Polygon): the service stores an encrypted
// copy, anchors the hash and sends the e-mail in the background; follow it with Status.
func (c *Client) Authenticate(ctx context.Context, network string, req *AuthenticationRequest) (*AuthenticationResult, error) {
	if network == "" {
		network = Polygon
	}
	if network != Polygon && network != EOS {
		return nil, fmt.Errorf("seald: unknown network %q: use %s or %s", network, Polygon, EOS)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("seald: encoding the request: %w", err)
	}
	var res AuthenticationResult
	path := fmt.Sprintf(pathSeal, strings.ToLower(network))
	if err := c.do(ctx, request{method: http.MethodPost, path: path, body: body, auth: true}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// AuthenticateJSON is Authenticate with the request body given as JSON as it is (one line of a bulk file,
// say), so that members this package does not know still reach the service.
func (c *Client) AuthenticateJSON(ctx context.Context, network string, body json.RawMessage) (*AuthenticationResult, error) {
	if network == "" {
		network = Polygon
	}
	if network != Polygon && network != EOS {
		return nil, fmt.Errorf("seald: unknown network %q: use %s or %s", network, Polygon, EOS)
	}
	var res AuthenticationResult
	path := fmt.Sprintf(pathSeal, strings.ToLower(network))
	if err := c.do(ctx, request{method: http.MethodPost, path: path, body: body, auth: true}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Status reads a record's authentication status.
func (c *Client) Status(ctx context.Context, reference string) (*StatusRecord, error) {
	var s StatusRecord
	err := c.do(ctx, request{method: http.MethodGet, path: pathStatus, query: url.Values{"reference": {reference}}, auth: true}, &s)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// UpdateStatus suspends (SUSPENDED), reactivates (ACTIVE) or revokes (REVOKED, final) a record of the
// caller's business; reason goes into the audit trail.
func (c *Client) UpdateStatus(ctx context.Context, reference, status, reason string) (*StatusChange, error) {
	body, _ := json.Marshal(struct {
		Reference string `json:"reference"`
		Status    string `json:"status"`
		Reason    string `json:"reason,omitempty"`
	}{reference, status, reason})
	var s StatusChange
	if err := c.do(ctx, request{method: http.MethodPut, path: pathUpdate, body: body, auth: true}, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Generate makes a generator record of data (a JSON object, as for VerifyData) and its encrypted reference.
func (c *Client) Generate(ctx context.Context, data any) (*GeneratorResult, error) {
	body, err := dataBody(data)
	if err != nil {
		return nil, err
	}
	var g GeneratorResult
	if err := c.do(ctx, request{method: http.MethodPost, path: pathGenerate, body: body, auth: true}, &g); err != nil {
		return nil, err
	}
	return &g, nil
}

// Download returns the sealed data of a record of the caller's business, in its canonical form; password is
// needed when the record was sealed with one.
func (c *Client) Download(ctx context.Context, reference, password string) (json.RawMessage, error) {
	return c.guarded(ctx, pathDownload, reference, password)
}

// DisclosurePackage returns the disclosure package of an anchored record of the caller's business: every
// member of its data with its salt, from which `seald disclose` makes presentations of chosen members
// (docs/disclosure.md). It is guarded as Download is: password is needed when the record was sealed with one.
func (c *Client) DisclosurePackage(ctx context.Context, reference, password string) (json.RawMessage, error) {
	return c.guarded(ctx, pathDisclose, reference, password)
}

// Credential returns a record's verifiable credential (docs/credentials.md) as the API's data member:
// {"format", "media_type", "issuer", "credential"}, the credential a W3C VC 2.0 object for format "vc" (or
// "") and an SD-JWT VC string for "sd-jwt-vc". It is guarded as the download is (password may be "").
func (c *Client) Credential(ctx context.Context, reference, password, format string) (json.RawMessage, error) {
	h := http.Header{}
	if password != "" {
		h.Set("X-Data-Password", password)
	}
	q := url.Values{"reference": {reference}}
	if format != "" {
		q.Set("format", format)
	}
	var out json.RawMessage
	if err := c.do(ctx, request{method: http.MethodGet, path: pathCredential, query: q, header: h, auth: true}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// guarded reads what a record's password guards (its data, its disclosure package) from path.
func (c *Client) guarded(ctx context.Context, path, reference, password string) (json.RawMessage, error) {
	h := http.Header{}
	if password != "" {
		h.Set("X-Data-Password", password)
	}
	var out json.RawMessage
	err := c.do(ctx, request{method: http.MethodGet, path: path, query: url.Values{"reference": {reference}},
		header: h, auth: true}, &out)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PublicKey returns the Ed25519 key that signs records and proof bundles.
func (c *Client) PublicKey(ctx context.Context) (*PublicKey, error) {
	var k PublicKey
	if err := c.do(ctx, request{method: http.MethodGet, path: pathPublicKey}, &k); err != nil {
		return nil, err
	}
	return &k, nil
}

// Healthz reports whether the service's process answers.
func (c *Client) Healthz(ctx context.Context) error {
	return c.do(ctx, request{method: http.MethodGet, path: "/healthz"}, nil)
}

// Readyz returns the service's readiness checks by part ("ok" or the part's error); when a part does not
// answer, the error is an *Error with status 503 and the checks are still returned.
func (c *Client) Readyz(ctx context.Context) (map[string]string, error) {
	checks := map[string]string{}
	err := c.do(ctx, request{method: http.MethodGet, path: "/readyz"}, &checks)
	if e, ok := err.(*Error); ok && e.StatusCode == http.StatusServiceUnavailable {
		_ = json.Unmarshal([]byte(e.Message), &checks)
	}
	return checks, err
}

// OpenAPI returns the service's OpenAPI 3.1 document.
func (c *Client) OpenAPI(ctx context.Context) (json.RawMessage, error) {
	var doc json.RawMessage
	// The document is not in an envelope; decode it whole.
	err := c.do(ctx, request{method: http.MethodGet, path: "/openapi.json", whole: true}, &doc)
	return doc, err
}
