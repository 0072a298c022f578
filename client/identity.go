package client

import (
	"context"
	"encoding/json"
	"net/http"

	"seald.dev/seald/wire"
)

// Identity is a business's domain identity (did:web), as in package wire.
type Identity = wire.Identity

const pathIdentity = "/tenant/identity"

// SetIdentity sets the domain of the caller's business, or with rotateKey makes it a new current key, and
// returns the identity with the DID document to publish.
func (c *Client) SetIdentity(ctx context.Context, domain string, rotateKey bool) (*Identity, error) {
	body, err := json.Marshal(struct {
		Domain    string `json:"domain"`
		RotateKey bool   `json:"rotate_key,omitempty"`
	}{domain, rotateKey})
	if err != nil {
		return nil, err
	}
	var id Identity
	if err := c.do(ctx, request{method: http.MethodPost, path: pathIdentity, body: body, auth: true}, &id); err != nil {
		return nil, err
	}
	return &id, nil
}

// CheckIdentity asks the service to fetch the published DID document now; the answer says verified (with
// the time) or, in Reason, why not.
func (c *Client) CheckIdentity(ctx context.Context) (*Identity, error) {
	var id Identity
	if err := c.do(ctx, request{method: http.MethodPost, path: pathIdentity + "/check", auth: true}, &id); err != nil {
		return nil, err
	}
	return &id, nil
}

// Identity returns the domain identity of the caller's business.
func (c *Client) Identity(ctx context.Context) (*Identity, error) {
	var id Identity
	if err := c.do(ctx, request{method: http.MethodGet, path: pathIdentity, auth: true}, &id); err != nil {
		return nil, err
	}
	return &id, nil
}
