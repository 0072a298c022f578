package mock

import (
	"context"

	"seald.dev/seald"
)

// WebhookService fakes seald.WebhookService with one function field per method; a test sets the ones its handler calls.
type WebhookService struct {
	CreateWebhookFn     func(ctx context.Context, c *seald.Caller, req seald.WebhookRequest) (*seald.Webhook, string, error)
	ListWebhooksFn      func(ctx context.Context, c *seald.Caller) ([]*seald.Webhook, error)
	DeleteWebhookFn     func(ctx context.Context, c *seald.Caller, id string) (*seald.Webhook, error)
	WebhookDeliveriesFn func(ctx context.Context, c *seald.Caller, id string) (*seald.Webhook, []*seald.Delivery, error)
	ReplayDeliveryFn    func(ctx context.Context, c *seald.Caller, deliveryID string) (*seald.Delivery, error)
}

var _ seald.WebhookService = (*WebhookService)(nil)

// CreateWebhook calls CreateWebhookFn.
func (s *WebhookService) CreateWebhook(ctx context.Context, c *seald.Caller, req seald.WebhookRequest) (*seald.Webhook, string, error) {
	if s.CreateWebhookFn == nil {
		unset("WebhookService", "CreateWebhook")
	}
	return s.CreateWebhookFn(ctx, c, req)
}

// ListWebhooks calls ListWebhooksFn.
func (s *WebhookService) ListWebhooks(ctx context.Context, c *seald.Caller) ([]*seald.Webhook, error) {
	if s.ListWebhooksFn == nil {
		unset("WebhookService", "ListWebhooks")
	}
	return s.ListWebhooksFn(ctx, c)
}

// DeleteWebhook calls DeleteWebhookFn.
func (s *WebhookService) DeleteWebhook(ctx context.Context, c *seald.Caller, id string) (*seald.Webhook, error) {
	if s.DeleteWebhookFn == nil {
		unset("WebhookService", "DeleteWebhook")
	}
	return s.DeleteWebhookFn(ctx, c, id)
}

// WebhookDeliveries calls WebhookDeliveriesFn.
func (s *WebhookService) WebhookDeliveries(ctx context.Context, c *seald.Caller, id string) (*seald.Webhook, []*seald.Delivery, error) {
	if s.WebhookDeliveriesFn == nil {
		unset("WebhookService", "WebhookDeliveries")
	}
	return s.WebhookDeliveriesFn(ctx, c, id)
}

// ReplayDelivery calls ReplayDeliveryFn.
func (s *WebhookService) ReplayDelivery(ctx context.Context, c *seald.Caller, deliveryID string) (*seald.Delivery, error) {
	if s.ReplayDeliveryFn == nil {
		unset("WebhookService", "ReplayDelivery")
	}
	return s.ReplayDeliveryFn(ctx, c, deliveryID)
}
