package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"seald.dev/seald/wire"
)

// Webhook bodies, as in package wire.
type (
	Webhook      = wire.Webhook
	WebhookList  = wire.WebhookList
	Delivery     = wire.Delivery
	DeliveryList = wire.DeliveryList
)

const pathWebhooks = "/webhooks"

// CreateWebhook registers url for the caller's project, for the given event types (none: every type). The
// answer carries the signing secret, which the service never shows again.
func (c *Client) CreateWebhook(ctx context.Context, target string, events []string) (*Webhook, error) {
	body, err := json.Marshal(struct {
		URL    string   `json:"url"`
		Events []string `json:"events,omitempty"`
	}{target, events})
	if err != nil {
		return nil, err
	}
	var w Webhook
	if err := c.do(ctx, request{method: http.MethodPost, path: pathWebhooks, body: body, auth: true}, &w); err != nil {
		return nil, err
	}
	return &w, nil
}

// Webhooks lists the caller's project's webhooks, oldest first.
func (c *Client) Webhooks(ctx context.Context) ([]Webhook, error) {
	var l WebhookList
	if err := c.do(ctx, request{method: http.MethodGet, path: pathWebhooks, auth: true}, &l); err != nil {
		return nil, err
	}
	return l.Webhooks, nil
}

// DeleteWebhook deletes one of the caller's project's webhooks; its pending deliveries fail.
func (c *Client) DeleteWebhook(ctx context.Context, id string) (*Webhook, error) {
	var w Webhook
	if err := c.do(ctx, request{method: http.MethodDelete, path: pathWebhooks + "/" + url.PathEscape(id), auth: true}, &w); err != nil {
		return nil, err
	}
	return &w, nil
}

// Deliveries lists a webhook's latest deliveries, newest first.
func (c *Client) Deliveries(ctx context.Context, webhookID string) ([]Delivery, error) {
	var l DeliveryList
	err := c.do(ctx, request{method: http.MethodGet, path: pathWebhooks + "/" + url.PathEscape(webhookID) + "/deliveries", auth: true}, &l)
	if err != nil {
		return nil, err
	}
	return l.Deliveries, nil
}

// ReplayDelivery sends a delivery's event again, with the same event id, as a new delivery.
func (c *Client) ReplayDelivery(ctx context.Context, deliveryID string) (*Delivery, error) {
	var d Delivery
	err := c.do(ctx, request{method: http.MethodPost, path: pathWebhooks + "/deliveries/" + url.PathEscape(deliveryID) + "/replay", auth: true}, &d)
	if err != nil {
		return nil, err
	}
	return &d, nil
}
