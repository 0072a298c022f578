package service

import (
	"context"
	"crypto/rand"
	"encoding/base64"

	"seald.dev/seald"
)

// CreateWebhook registers an endpoint for the caller's project and returns it with its signing secret in the
// clear, which is never shown again. c must be a project's caller: webhooks belong to a project, so nobody
// and the operator are EUNAUTHORIZED, as in every webhook operation.
func (s *Service) CreateWebhook(ctx context.Context, c *seald.Caller, req seald.WebhookRequest) (*seald.Webhook, string, error) {
	if err := projectCaller(c); err != nil {
		return nil, "", err
	}
	if s.Webhooks == nil {
		return nil, "", seald.Errorf(seald.EUNAVAILABLE, "webhooks are not available on this instance")
	}
	u, err := seald.ParseWebhookURL(req.URL)
	if err != nil {
		return nil, "", err
	}
	if s.CheckWebhookTarget != nil {
		if err := s.CheckWebhookTarget(u); err != nil {
			return nil, "", seald.Errorf(seald.EINVALID, "url: %s", seald.ErrorMessage(err))
		}
	}
	events, err := seald.ParseEventTypes(req.Events)
	if err != nil {
		return nil, "", err
	}
	existing, err := s.Webhooks.ProjectWebhooks(ctx, c.Project.ProjectID)
	if err != nil {
		return nil, "", err
	}
	if len(existing) >= seald.MaxWebhooksPerProject {
		return nil, "", seald.Errorf(seald.EINVALID, "a project has at most %d webhooks: delete one first", seald.MaxWebhooksPerProject)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, "", err
	}
	// Standard Webhooks' form: whsec_ and the key in standard base64, as its libraries decode it.
	secret := "whsec_" + base64.StdEncoding.EncodeToString(b[:])
	sealed, err := s.Secrets.SealString(secret, seald.WebhookSecretPurpose)
	if err != nil {
		return nil, "", err
	}
	w := &seald.Webhook{ID: seald.NewID("wh_"), BusinessID: c.Business.BusinessID, ProjectID: c.Project.ProjectID,
		URL: u.String(), Events: events, Secret: sealed, CreatedAt: s.now()}
	if err := s.Webhooks.CreateWebhook(ctx, w); err != nil {
		return nil, "", err
	}
	return w, secret, nil
}

// ownWebhook returns a webhook of the caller's project; any other is ENOTFOUND.
func (s *Service) ownWebhook(ctx context.Context, c *seald.Caller, id string) (*seald.Webhook, error) {
	if err := projectCaller(c); err != nil {
		return nil, err
	}
	if s.Webhooks == nil {
		return nil, seald.Errorf(seald.EUNAVAILABLE, "webhooks are not available on this instance")
	}
	w, err := s.Webhooks.Webhook(ctx, id)
	if err != nil && seald.ErrorCode(err) != seald.ENOTFOUND {
		return nil, err
	}
	if err != nil || w.ProjectID != c.Project.ProjectID {
		return nil, seald.Errorf(seald.ENOTFOUND, "no webhook %s", id)
	}
	return w, nil
}

// ListWebhooks returns the caller's project's webhooks.
func (s *Service) ListWebhooks(ctx context.Context, c *seald.Caller) ([]*seald.Webhook, error) {
	if err := projectCaller(c); err != nil {
		return nil, err
	}
	if s.Webhooks == nil {
		return nil, seald.Errorf(seald.EUNAVAILABLE, "webhooks are not available on this instance")
	}
	return s.Webhooks.ProjectWebhooks(ctx, c.Project.ProjectID)
}

// DeleteWebhook deletes a webhook of the caller's project; its pending deliveries fail.
func (s *Service) DeleteWebhook(ctx context.Context, c *seald.Caller, id string) (*seald.Webhook, error) {
	w, err := s.ownWebhook(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if err := s.Webhooks.DeleteWebhook(ctx, w.ID, s.now()); err != nil {
		if seald.ErrorCode(err) == seald.ENOTFOUND {
			return nil, seald.Errorf(seald.ENOTFOUND, "no webhook %s", id)
		}
		return nil, err
	}
	return w, nil
}

// WebhookDeliveries returns the latest deliveries of a webhook of the caller's project, newest first.
func (s *Service) WebhookDeliveries(ctx context.Context, c *seald.Caller, id string) (*seald.Webhook, []*seald.Delivery, error) {
	w, err := s.ownWebhook(ctx, c, id)
	if err != nil {
		return nil, nil, err
	}
	ds, err := s.Webhooks.Deliveries(ctx, w.ID, seald.MaxDeliveriesListed)
	return w, ds, err
}

// ReplayDelivery sends a delivery's event to its webhook again, as a new delivery due at once carrying the
// same event (same id, same body).
func (s *Service) ReplayDelivery(ctx context.Context, c *seald.Caller, deliveryID string) (*seald.Delivery, error) {
	if err := projectCaller(c); err != nil {
		return nil, err
	}
	if s.Webhooks == nil {
		return nil, seald.Errorf(seald.EUNAVAILABLE, "webhooks are not available on this instance")
	}
	missing := seald.Errorf(seald.ENOTFOUND, "no delivery %s", deliveryID)
	d, err := s.Webhooks.Delivery(ctx, deliveryID)
	if seald.ErrorCode(err) == seald.ENOTFOUND {
		return nil, missing
	} else if err != nil {
		return nil, err
	}
	if _, err := s.ownWebhook(ctx, c, d.WebhookID); err != nil {
		if seald.ErrorCode(err) == seald.ENOTFOUND {
			return nil, missing
		}
		return nil, err
	}
	now := s.now()
	r := &seald.Delivery{ID: seald.NewID("whd_"), WebhookID: d.WebhookID, EventID: d.EventID, EventType: d.EventType,
		Reference: d.Reference, State: seald.DeliveryPending, RunAt: now, CreatedAt: now, UpdatedAt: now}
	if err := s.Webhooks.AddDelivery(ctx, r); err != nil {
		return nil, err
	}
	s.wakeWebhooks()
	return r, nil
}

func (s *Service) wakeWebhooks() {
	if s.WakeWebhooks != nil {
		s.WakeWebhooks()
	}
}
