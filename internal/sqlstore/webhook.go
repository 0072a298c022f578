package sqlstore

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"time"

	"seald.dev/seald"
)

// insertEvent saves a record event and one PENDING delivery, due at once, for each webhook of the event's
// project that asked for its type, inside the caller's transaction (the one of the change that causes the
// event). An event no webhook asked for is not kept: nobody could ever receive it.
func (s *Store) insertEvent(ctx context.Context, q Querier, ev *seald.Event) error {
	if ev == nil {
		return nil
	}
	rows, err := q.Query(ctx, `SELECT id, events FROM webhooks WHERE project_id = ? AND deleted_at IS NULL`, ev.ProjectID)
	if err != nil {
		return err
	}
	type hook struct {
		id     string
		events []seald.EventType
	}
	hooks, err := collect(rows, func(row Row) (h hook, err error) {
		var events string
		if err = row.Scan(&h.id, &events); err == nil {
			err = json.Unmarshal([]byte(events), &h.events)
		}
		return h, err
	})
	if err != nil {
		return err
	}
	var targets []string
	for _, h := range hooks {
		if slices.Contains(h.events, ev.Type) {
			targets = append(targets, h.id)
		}
	}
	if len(targets) == 0 {
		return nil
	}
	if _, err := q.Exec(ctx, `INSERT INTO webhook_events (id, project_id, type, reference, body, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, ev.ID, ev.ProjectID, string(ev.Type), ev.Reference, ev.Body, s.D.Time(ev.CreatedAt)); err != nil {
		return err
	}
	for _, id := range targets {
		d := &seald.Delivery{ID: seald.NewID("whd_"), WebhookID: id, EventID: ev.ID, State: seald.DeliveryPending,
			RunAt: ev.CreatedAt, CreatedAt: ev.CreatedAt, UpdatedAt: ev.CreatedAt}
		if err := s.insertDelivery(ctx, q, d); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) insertDelivery(ctx context.Context, q Querier, d *seald.Delivery) error {
	_, err := q.Exec(ctx, `INSERT INTO webhook_deliveries (id, webhook_id, event_id, state, attempts, run_at,
		leased_until, last_attempt_at, last_status, last_error, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, 0, '', ?, ?)`, d.ID, d.WebhookID, d.EventID, string(d.State), d.Attempts,
		s.D.Time(d.RunAt), s.D.Time(d.CreatedAt), s.D.Time(d.UpdatedAt))
	return err
}

const webhookColumns = `id, business_id, project_id, url, events, secret, created_at`

func scanWebhook(row Row) (*seald.Webhook, error) {
	var w seald.Webhook
	var events string
	if err := row.Scan(&w.ID, &w.BusinessID, &w.ProjectID, &w.URL, &events, &w.Secret, Time{T: &w.CreatedAt}); err != nil {
		return nil, err
	}
	return &w, jsonInto("webhook events", &events, &w.Events)
}

// CreateWebhook inserts a webhook; ECONFLICT when its id exists, ENOTFOUND when its project does not.
func (s *Store) CreateWebhook(ctx context.Context, w *seald.Webhook) error {
	op := s.op("CreateWebhook")
	events, err := jsonText(w.Events, false)
	if err != nil {
		return s.D.Wrap(op, err)
	}
	return s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		_, err := q.Exec(ctx, `INSERT INTO webhooks (`+webhookColumns+`, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)`,
			w.ID, w.BusinessID, w.ProjectID, w.URL, events, w.Secret, s.D.Time(w.CreatedAt))
		return err
	})
}

// Webhook returns a webhook that is not deleted.
func (s *Store) Webhook(ctx context.Context, id string) (*seald.Webhook, error) {
	op := s.op("Webhook")
	return one(ctx, s, op, scanWebhook, NotFound(op, "no webhook %s", id),
		`SELECT `+webhookColumns+` FROM webhooks WHERE id = ? AND deleted_at IS NULL`, id)
}

// ProjectWebhooks lists a project's webhooks that are not deleted, oldest first.
func (s *Store) ProjectWebhooks(ctx context.Context, projectID string) ([]*seald.Webhook, error) {
	return list(ctx, s, s.op("ProjectWebhooks"), scanWebhook, `SELECT `+webhookColumns+` FROM webhooks
		WHERE project_id = ? AND deleted_at IS NULL ORDER BY created_at, id`, projectID)
}

// DeleteWebhook marks a webhook deleted and fails its pending deliveries, in one transaction.
func (s *Store) DeleteWebhook(ctx context.Context, id string, at time.Time) error {
	op := s.op("DeleteWebhook")
	return s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		n, err := q.Exec(ctx, `UPDATE webhooks SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL`, s.D.Time(at), id)
		if err := mustAffect(n, err, NotFound(op, "no webhook %s", id)); err != nil {
			return err
		}
		_, err = q.Exec(ctx, `UPDATE webhook_deliveries SET state = ?, leased_until = NULL, last_error = ?, updated_at = ?
			WHERE webhook_id = ? AND state = ?`, string(seald.DeliveryFailed), "the webhook was deleted", s.D.Time(at),
			id, string(seald.DeliveryPending))
		return err
	})
}

const deliveryColumns = `d.id, d.webhook_id, d.event_id, e.type, e.reference, d.state, d.attempts, d.run_at,
	d.leased_until, d.last_attempt_at, d.last_status, d.last_error, d.created_at, d.updated_at`

const deliveryFrom = ` FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id `

func scanDelivery(row Row) (*seald.Delivery, error) { return scanDeliveryWith(row, false) }

// scanClaimed scans a claimed delivery: the listed columns, then what sending it needs (URL, secret, body).
func scanClaimed(row Row) (*seald.Delivery, error) { return scanDeliveryWith(row, true) }

// scanListed scans a listed delivery: the listed columns, then its event's body (what the console describes).
func scanListed(row Row) (*seald.Delivery, error) {
	var body []byte
	d, err := scanDeliveryWith(row, false, &body)
	if d != nil {
		d.Body = body
	}
	return d, err
}

func scanDeliveryWith(row Row, claimed bool, more ...any) (*seald.Delivery, error) {
	var d seald.Delivery
	var typ, state string
	var leased, last *time.Time
	dest := []any{&d.ID, &d.WebhookID, &d.EventID, &typ, &d.Reference, &state, &d.Attempts, Time{T: &d.RunAt},
		Time{Null: &leased}, Time{Null: &last}, &d.LastStatusCode, &d.LastError, Time{T: &d.CreatedAt},
		Time{T: &d.UpdatedAt}}
	if claimed {
		dest = append(dest, &d.URL, &d.Secret, &d.Body)
	}
	dest = append(dest, more...)
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	d.EventType, d.State = seald.EventType(typ), seald.DeliveryState(state)
	if leased != nil {
		d.LeasedUntil = *leased
	}
	if last != nil {
		d.LastAttemptAt = *last
	}
	return &d, nil
}

// Deliveries lists up to limit deliveries of a webhook, newest first, each with its event's body.
func (s *Store) Deliveries(ctx context.Context, webhookID string, limit int) ([]*seald.Delivery, error) {
	return list(ctx, s, s.op("Deliveries"), scanListed, `SELECT `+deliveryColumns+`, e.body`+deliveryFrom+
		`WHERE d.webhook_id = ? ORDER BY d.seq DESC LIMIT ?`, webhookID, limit)
}

// Delivery returns one delivery.
func (s *Store) Delivery(ctx context.Context, id string) (*seald.Delivery, error) {
	op := s.op("Delivery")
	return one(ctx, s, op, scanDelivery, NotFound(op, "no delivery %s", id),
		`SELECT `+deliveryColumns+deliveryFrom+`WHERE d.id = ?`, id)
}

// AddDelivery inserts a delivery of an existing event; ENOTFOUND (from the foreign keys) when its event or
// webhook does not exist.
func (s *Store) AddDelivery(ctx context.Context, d *seald.Delivery) error {
	return s.E.Write(ctx, s.op("AddDelivery"), func(ctx context.Context, q Querier) error {
		return s.insertDelivery(ctx, q, d)
	})
}

// ClaimDeliveries leases due PENDING deliveries, earliest first, in one transaction (SQLite's one writer, or
// PostgreSQL's row locks skipped by other claimers), and reads what sending them needs.
func (s *Store) ClaimDeliveries(ctx context.Context, limit int, now time.Time, lease time.Duration) ([]*seald.Delivery, error) {
	if limit < 1 {
		return []*seald.Delivery{}, nil
	}
	var out []*seald.Delivery
	err := s.E.Write(ctx, s.op("ClaimDeliveries"), func(ctx context.Context, q Querier) error {
		rows, err := q.Query(ctx, `UPDATE webhook_deliveries SET leased_until = ? WHERE seq IN (
			SELECT seq FROM webhook_deliveries WHERE state = ? AND run_at <= ? AND (leased_until IS NULL OR leased_until <= ?)
			ORDER BY run_at, seq LIMIT ? `+s.D.ClaimLock+`) RETURNING id`,
			s.D.Time(now.Add(lease)), string(seald.DeliveryPending), s.D.Time(now), s.D.Time(now), limit)
		if err != nil {
			return err
		}
		ids, err := collect(rows, func(row Row) (id string, err error) {
			err = row.Scan(&id)
			return id, err
		})
		if err != nil {
			return err
		}
		out = make([]*seald.Delivery, 0, len(ids))
		for _, id := range ids {
			d, err := scanClaimed(q.QueryRow(ctx, `SELECT `+deliveryColumns+`, w.url, w.secret, e.body`+deliveryFrom+
				`JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = ?`, id))
			if err != nil {
				return err
			}
			out = append(out, d)
		}
		sort.Slice(out, func(a, b int) bool {
			if !out[a].RunAt.Equal(out[b].RunAt) {
				return out[a].RunAt.Before(out[b].RunAt)
			}
			return out[a].CreatedAt.Before(out[b].CreatedAt)
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SaveAttempt saves a claimed delivery's outcome and releases its lease, only while it is still the caller's
// (leased, with the same lease ClaimDeliveries gave) and PENDING.
func (s *Store) SaveAttempt(ctx context.Context, d *seald.Delivery) error {
	op := s.op("SaveAttempt")
	var lease, last any
	if !d.LeasedUntil.IsZero() {
		lease = s.D.Time(d.LeasedUntil)
	}
	if !d.LastAttemptAt.IsZero() {
		last = s.D.Time(d.LastAttemptAt)
	}
	err := s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		n, err := q.Exec(ctx, `UPDATE webhook_deliveries SET state = ?, attempts = ?, run_at = ?, leased_until = NULL,
			last_attempt_at = ?, last_status = ?, last_error = ?, updated_at = ?
			WHERE id = ? AND state = ? AND leased_until IS NOT NULL AND `+s.D.SameLease,
			string(d.State), d.Attempts, s.D.Time(d.RunAt), last, d.LastStatusCode, d.LastError, s.D.Time(d.UpdatedAt),
			d.ID, string(seald.DeliveryPending), lease)
		return mustAffect(n, err, Conflict(op, "delivery %s is no longer leased to this process", d.ID))
	})
	if err != nil {
		return err
	}
	d.LeasedUntil = time.Time{}
	return nil
}
