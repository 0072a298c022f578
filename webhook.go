package seald

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// EventType names a record event a project's webhooks may be told about.
type EventType string

// Record events. Each is created in the same transaction as the record change that causes it, so that none
// is lost when the process dies after the change and none is invented when the change is rolled back.
const (
	EventRecordCompleted     EventType = "record.completed"      // the record reached COMPLETED
	EventRecordFailed        EventType = "record.failed"         // a step failed for good: the record is FAILED
	EventRecordStatusChanged EventType = "record.status_changed" // ACTIVE, SUSPENDED or REVOKED was set
	// EventRecordErased: the record's data was erased and what was left of it on disk (its stored copy, its
	// kept e-mail) is deleted; sent when the erase job has finished.
	EventRecordErased EventType = "record.erased"
)

// EventTypes are every event type, in the order the API lists them.
var EventTypes = []EventType{EventRecordCompleted, EventRecordFailed, EventRecordStatusChanged, EventRecordErased}

// Webhook is an endpoint of a project that record events are delivered to.
type Webhook struct {
	ID         string // "wh_" and 16 base32 characters
	BusinessID string
	ProjectID  string
	URL        string
	Events     []EventType
	// Secret is the signing secret sealed with the master key (KeyWrapper, purpose WebhookSecretPurpose); the
	// secret itself is shown once, when the webhook is created.
	Secret    string
	CreatedAt time.Time
}

// WebhookSecretPurpose binds a sealed webhook secret to its use.
const WebhookSecretPurpose = "webhook-secret"

// Event is one record event, with the exact body every delivery of it sends: a retry or a replay sends the
// same bytes and the same id, so that receivers can drop a repeat by its id.
type Event struct {
	ID        string // "evt_" and 16 base32 characters
	Type      EventType
	ProjectID string
	Reference string
	Body      []byte // JSON: {"id","type","created","data"}
	CreatedAt time.Time
}

// DeliveryState is where one delivery of an event to one webhook is.
type DeliveryState string

// Delivery states: PENDING until the endpoint answers 2xx (DELIVERED) or the retries run out or the
// endpoint is deleted (FAILED).
const (
	DeliveryPending   DeliveryState = "PENDING"
	DeliveryDelivered DeliveryState = "DELIVERED"
	DeliveryFailed    DeliveryState = "FAILED"
)

// Delivery is one event sent to one webhook: a durable job of its own, claimed with a lease like the
// pipeline's, retried with backoff, and kept afterwards so that its owner can see it and replay it.
type Delivery struct {
	ID        string // "whd_" and 16 base32 characters
	WebhookID string
	EventID   string
	EventType EventType
	Reference string
	State     DeliveryState
	Attempts  int
	// RunAt is the next try while PENDING.
	RunAt       time.Time
	LeasedUntil time.Time // zero when unclaimed
	// LastAttemptAt is zero before the first try; LastStatusCode is 0 when the last try got no answer
	// (LastError says why).
	LastAttemptAt  time.Time
	LastStatusCode int
	LastError      string
	CreatedAt      time.Time
	UpdatedAt      time.Time

	// What a claimed delivery needs to be sent, filled by ClaimDeliveries only; Body (the event's JSON) is
	// also filled by Deliveries, for the console to say what the event was.
	URL    string
	Secret string // sealed
	Body   []byte
}

// Webhooks persists webhooks, record events and their deliveries. The events themselves are inserted by
// CompleteJob, FailJob and ChangeStatus, in the transaction of the change that causes them (RecordUpdate.Event,
// StatusChange.Event), with one PENDING delivery for each webhook of the record's project that asked for the
// event's type; an event no webhook asked for is not kept.
type Webhooks interface {
	CreateWebhook(ctx context.Context, w *Webhook) error
	// Webhook returns a webhook that is not deleted; ENOTFOUND otherwise.
	Webhook(ctx context.Context, id string) (*Webhook, error)
	// ProjectWebhooks lists the webhooks of a project that are not deleted, oldest first.
	ProjectWebhooks(ctx context.Context, projectID string) ([]*Webhook, error)
	// DeleteWebhook deletes a webhook and fails its pending deliveries, in one transaction; ENOTFOUND when
	// it does not exist or is already deleted.
	DeleteWebhook(ctx context.Context, id string, at time.Time) error
	// Deliveries lists up to limit deliveries of a webhook, newest first.
	Deliveries(ctx context.Context, webhookID string, limit int) ([]*Delivery, error)
	Delivery(ctx context.Context, id string) (*Delivery, error)
	// AddDelivery inserts a PENDING delivery of an event that exists (a replay).
	AddDelivery(ctx context.Context, d *Delivery) error
	// ClaimDeliveries leases up to limit PENDING deliveries due at now until now+lease, earliest first, with
	// their webhook's URL and sealed secret and the event's body. Several processes may claim at once; a
	// delivery is given to one of them.
	ClaimDeliveries(ctx context.Context, limit int, now time.Time, lease time.Duration) ([]*Delivery, error)
	// SaveAttempt saves a claimed delivery's state, attempts, next run and last attempt and releases its
	// lease; ECONFLICT, and nothing changes, when the delivery is no longer the caller's.
	SaveAttempt(ctx context.Context, d *Delivery) error
}

// WebhookSender sends one event to one endpoint, signed with the endpoint's secret (in the clear) at now. It
// returns the answer's status code (0 without one) and an error unless it was 2xx; a destination that will
// never be allowed is a Permanent error.
type WebhookSender interface {
	Send(ctx context.Context, url, secret, eventID string, eventType EventType, body []byte, now time.Time) (int, error)
}

// Bounds of webhooks.
const (
	MaxWebhookURL         = 2048
	MaxWebhooksPerProject = 20
)

// NewEvent makes a record event of the given type about r (as it is after the change), with extra members
// for its data ("previous_status", "reason" of a status change). Its body is fixed here, once.
func NewEvent(typ EventType, r *Record, at time.Time, extra map[string]string) *Event {
	data := map[string]any{
		"reference": r.Reference, "project_id": r.ProjectID, "business_id": r.BusinessID, "hash": r.Hash,
		"network": r.Network, "state": string(r.State), "status": string(r.Status),
	}
	if r.TokenID != 0 {
		data["token_id"] = strconv.FormatUint(r.TokenID, 10)
	}
	if r.CID != "" {
		data["cid"] = r.CID
	}
	if r.ErrorType != "" {
		data["error_type"], data["error_message"] = r.ErrorType, r.ErrorMessage
	}
	for k, v := range extra {
		data[k] = v
	}
	ev := &Event{ID: NewID("evt_"), Type: typ, ProjectID: r.ProjectID, Reference: r.Reference, CreatedAt: at}
	ev.Body, _ = json.Marshal(map[string]any{"id": ev.ID, "type": string(typ), "created": at.Unix(), "data": data})
	return ev
}

// WebhookRequest is what the owner asks for when creating a webhook.
type WebhookRequest struct {
	URL    string
	Events []string // empty: every event type
}

// WebhookTargetCheck refuses a URL that deliveries would never be allowed to reach (a private address the
// operator did not allow). Service.CheckWebhookTarget holds it; nil checks nothing beyond the scheme.
type WebhookTargetCheck func(u *url.URL) error

// ParseWebhookURL accepts an absolute http or https URL with a host, and nothing else.
func ParseWebhookURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, Errorf(EINVALID, "url is required")
	}
	if len(raw) > MaxWebhookURL {
		return nil, Errorf(EINVALID, "url is longer than %d bytes", MaxWebhookURL)
	}
	if HasControl(raw) {
		return nil, Errorf(EINVALID, "url must not contain control characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, Errorf(EINVALID, "url is not a valid URL")
	}
	if u.Scheme == "" {
		// example.com/hook: no scheme at all, which `not ""` did not make plain.
		return nil, Errorf(EINVALID, "url %q has no scheme: give the whole URL, such as https://%s", raw, strings.TrimPrefix(raw, "//"))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, Errorf(EINVALID, "url must be an http or https URL, not %q", u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, Errorf(EINVALID, "url has no host")
	}
	if u.User != nil {
		return nil, Errorf(EINVALID, "url must not carry a user name or password: the signature authenticates seald")
	}
	u.Fragment = ""
	return u, nil
}

// ParseEventTypes checks the event types asked for; none is every type.
func ParseEventTypes(in []string) ([]EventType, error) {
	if len(in) == 0 {
		return slices.Clone(EventTypes), nil
	}
	var out []EventType
	for _, e := range in {
		t := EventType(strings.TrimSpace(e))
		if !slices.Contains(EventTypes, t) {
			names := make([]string, len(EventTypes))
			for i, x := range EventTypes {
				names[i] = string(x)
			}
			return nil, Errorf(EINVALID, "events: unknown event type %q: use %s", e, strings.Join(names, ", "))
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// MaxDeliveriesListed is how many deliveries of a webhook are listed, newest first.
const MaxDeliveriesListed = 100
