package console

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"seald.dev/seald"
)

// Webhooks: the project's endpoints, as the API keeps them (docs/webhooks.md). A new webhook's signing
// secret is shown once, on the page its creation redirects to; it is kept in the session until then, never
// in a URL.

// hooksView is the body of the webhooks page.
type hooksView struct {
	Webhooks []*seald.Webhook
	Events   []seald.EventType
	URL      string
	Error    string
	Done     string
}

var hookDone = map[string]string{"removed": "The webhook is removed."}

func (c *Console) webhooks(w http.ResponseWriter, r *request) {
	c.showWebhooks(w, r, http.StatusOK, hooksView{Done: hookDone[r.URL.Query().Get("done")]})
}

func (c *Console) showWebhooks(w http.ResponseWriter, r *request, status int, v hooksView) {
	hooks, err := c.Service.ListWebhooks(r.Context(), r.caller)
	if err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	v.Webhooks, v.Events = hooks, seald.EventTypes
	c.render(w, r.Request, status, hooksTmpl, c.page(r, "Webhooks", v))
}

func (c *Console) createWebhook(w http.ResponseWriter, r *request) {
	_ = r.ParseForm()
	u := strings.TrimSpace(r.PostFormValue("url"))
	hook, secret, err := c.Service.CreateWebhook(r.Context(), r.caller, seald.WebhookRequest{URL: u, Events: r.PostForm["events"]})
	if err != nil {
		if seald.ErrorCode(err) == seald.EINVALID {
			c.showWebhooks(w, r, http.StatusBadRequest, hooksView{URL: u, Error: seald.ErrorMessage(err)})
			return
		}
		c.fail(w, r.Request, r, err)
		return
	}
	c.sessions.keepSecret(r.session, secret)
	redirect(w, r.Request, "/console/webhooks/"+url.PathEscape(hook.ID)+"?done=created")
}

// hookView is the body of one webhook's page: its deliveries, newest first, with their attempts and answers.
type hookView struct {
	Webhook    *seald.Webhook
	Deliveries []*seald.Delivery
	Secret     string // shown once, right after creation
	Done       string
}

var deliveryDone = map[string]string{
	"created":  "The webhook is added.",
	"replayed": "The delivery is queued to be sent again.",
}

func (c *Console) webhook(w http.ResponseWriter, r *request) {
	hook, ds, err := c.Service.WebhookDeliveries(r.Context(), r.caller, r.PathValue("id"))
	if err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	v := hookView{Webhook: hook, Deliveries: ds, Done: deliveryDone[r.URL.Query().Get("done")]}
	if r.URL.Query().Get("done") == "created" {
		v.Secret = c.sessions.takeSecret(r.session)
	}
	c.render(w, r.Request, http.StatusOK, hookTmpl, c.page(r, "Webhook "+hook.ID, v))
}

func (c *Console) deleteWebhook(w http.ResponseWriter, r *request) {
	if _, err := c.Service.DeleteWebhook(r.Context(), r.caller, r.PathValue("id")); err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	redirect(w, r.Request, "/console/webhooks?done=removed")
}

// replayDelivery sends a delivery of the webhook again; a delivery of another webhook is not found here.
func (c *Console) replayDelivery(w http.ResponseWriter, r *request) {
	id := r.PathValue("id")
	_, ds, err := c.Service.WebhookDeliveries(r.Context(), r.caller, id)
	if err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	found := false
	for _, d := range ds {
		found = found || d.ID == r.PathValue("delivery")
	}
	if !found {
		c.notFound(w, r.Request, r)
		return
	}
	if _, err := c.Service.ReplayDelivery(r.Context(), r.caller, r.PathValue("delivery")); err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	redirect(w, r.Request, "/console/webhooks/"+url.PathEscape(id)+"?done=replayed")
}

// eventWords says what a delivery's event was, for people, from the event's body (seald.NewEvent): what
// happened to the record, with the status change and its reason, the token, or the failed step. A body that
// cannot be read is described by its type alone.
func eventWords(d *seald.Delivery) string {
	var ev struct {
		Data map[string]string `json:"data"`
	}
	_ = json.Unmarshal(d.Body, &ev)
	data := ev.Data
	switch d.EventType {
	case seald.EventRecordCompleted:
		s := "Sealed: COMPLETED"
		if t := data["token_id"]; t != "" {
			s += ", anchored as token " + t
		}
		return s
	case seald.EventRecordFailed:
		s := "Failed for good"
		if data["error_type"] != "" {
			s += ": " + data["error_type"] + ": " + data["error_message"]
		}
		return s
	case seald.EventRecordStatusChanged:
		s := "Status changed"
		if data["previous_status"] != "" && data["status"] != "" {
			s += ": " + data["previous_status"] + " → " + data["status"]
		}
		if data["reason"] != "" {
			s += " (reason: " + data["reason"] + ")"
		}
		return s
	case seald.EventRecordErased:
		return "Data erased"
	}
	return string(d.EventType)
}
