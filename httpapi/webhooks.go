package httpapi

import (
	"encoding/json"
	"net/http"

	"seald.dev/seald"
	"seald.dev/seald/wire"
)

// The webhook operations (beyond the seed): the owner's project's endpoints for record events, their
// deliveries, and replays. Another project's webhook or delivery is 404, as one that does not exist.

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) {
	b, err := decode(r, s.BodyLimit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	url, present, err := b.str("url")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !present {
		s.writeError(w, r, seald.Errorf(seald.EINVALID, "url is required"))
		return
	}
	var events []string
	if v, ok := b["events"]; ok && !isNull(v) {
		if v[0] != '[' || json.Unmarshal(v, &events) != nil {
			s.writeError(w, r, seald.Errorf(seald.EINVALID, "events must be an array of strings"))
			return
		}
	}
	for name := range b {
		if name != "url" && name != "events" {
			s.writeError(w, r, seald.Errorf(seald.EINVALID, "unknown member %q: give url and events", name))
			return
		}
	}
	hook, secret, err := s.Service.CreateWebhook(r.Context(), callerOf(r.Context()), seald.WebhookRequest{URL: url, Events: events})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := webhookOf(hook)
	out.Secret = secret
	writeOK(w, r, http.StatusCreated, out)
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request) {
	hooks, err := s.Service.ListWebhooks(r.Context(), callerOf(r.Context()))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := wire.WebhookList{Webhooks: []wire.Webhook{}}
	for _, h := range hooks {
		out.Webhooks = append(out.Webhooks, webhookOf(h))
	}
	writeOK(w, r, http.StatusOK, out)
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	hook, err := s.Service.DeleteWebhook(r.Context(), callerOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeOK(w, r, http.StatusOK, webhookOf(hook))
}

func (s *Server) listDeliveries(w http.ResponseWriter, r *http.Request) {
	hook, ds, err := s.Service.WebhookDeliveries(r.Context(), callerOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := wire.DeliveryList{WebhookID: hook.ID, Deliveries: []wire.Delivery{}}
	for _, d := range ds {
		out.Deliveries = append(out.Deliveries, deliveryOf(d))
	}
	writeOK(w, r, http.StatusOK, out)
}

func (s *Server) replayDelivery(w http.ResponseWriter, r *http.Request) {
	d, err := s.Service.ReplayDelivery(r.Context(), callerOf(r.Context()), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeOK(w, r, http.StatusCreated, deliveryOf(d))
}

func webhookOf(h *seald.Webhook) wire.Webhook {
	events := make([]string, len(h.Events))
	for i, e := range h.Events {
		events[i] = string(e)
	}
	return wire.Webhook{ID: h.ID, URL: h.URL, Events: events, CreatedAt: formatTime(h.CreatedAt)}
}

func deliveryOf(d *seald.Delivery) wire.Delivery {
	out := wire.Delivery{ID: d.ID, WebhookID: d.WebhookID, EventID: d.EventID, EventType: string(d.EventType),
		Reference: d.Reference, State: string(d.State), Attempts: d.Attempts, CreatedAt: formatTime(d.CreatedAt),
		LastAttemptAt: formatTime(d.LastAttemptAt), LastStatusCode: d.LastStatusCode, LastError: d.LastError}
	if d.State == seald.DeliveryPending {
		out.NextAttemptAt = formatTime(d.RunAt)
	}
	return out
}
