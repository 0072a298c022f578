package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"seald.dev/seald"
)

var webhookTests = []test{
	{"CreateListDelete", testWebhookCreateListDelete},
	{"EventsWithTheirChange", testWebhookEventsWithChange},
	{"NoEventWithoutWebhook", testWebhookNoEventWithoutHook},
	{"ClaimRetryDeliver", testWebhookClaimRetryDeliver},
	{"ClaimConcurrent", testWebhookClaimConcurrent},
	{"Replay", testWebhookReplay},
	{"DeleteFailsPending", testWebhookDeleteFailsPending},
	{"ReleaseLeases", testWebhookReleaseLeases},
}

// ReleaseLeases frees the leases of deliveries too: a process that died mid-delivery leaves it to be sent again.
func testWebhookReleaseLeases(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	newWebhook(t, s, p, base, seald.EventTypes...)
	r := withJobs(t, s, p)
	c := &seald.StatusChange{Reference: r.Reference, To: seald.StatusSuspended, Actor: "cli", At: base}
	c.Event = event(seald.EventRecordStatusChanged, r, base)
	ok(t, "ChangeStatus", s.ChangeStatus(ctx, c, seald.StatusActive))
	first, err := s.ClaimDeliveries(ctx, 10, base, time.Hour)
	ok(t, "ClaimDeliveries", err)
	equal(t, "claimed", len(first), 1)
	ok(t, "ReleaseLeases", s.ReleaseLeases(ctx))
	again, err := s.ClaimDeliveries(ctx, 10, base, time.Hour)
	ok(t, "ClaimDeliveries after ReleaseLeases", err)
	if len(again) != 1 || again[0].ID != first[0].ID {
		t.Errorf("claimed %s after ReleaseLeases, want %s again", show(again), first[0].ID)
	}
}

// newWebhook stores a webhook of p for the given event types and returns it.
func newWebhook(t *testing.T, s seald.Store, p *seald.Project, at time.Time, events ...seald.EventType) *seald.Webhook {
	t.Helper()
	n := next()
	w := &seald.Webhook{ID: fmt.Sprintf("wh_%016d", n), BusinessID: p.BusinessID, ProjectID: p.ProjectID,
		URL: fmt.Sprintf("https://example.com/hook/%d", n), Events: events, Secret: "sealed-" + randomHex(8), CreatedAt: at}
	ok(t, "CreateWebhook", s.CreateWebhook(t.Context(), w))
	return w
}

// event returns an event of r, not stored.
func event(typ seald.EventType, r *seald.Record, at time.Time) *seald.Event {
	return seald.NewEvent(typ, r, at, nil)
}

// deliveries lists a webhook's deliveries, failing the test on error.
func deliveries(t *testing.T, s seald.Store, w *seald.Webhook) []*seald.Delivery {
	t.Helper()
	ds, err := s.Deliveries(t.Context(), w.ID, 100)
	ok(t, "Deliveries", err)
	return ds
}

func testWebhookCreateListDelete(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	_, other := tenant(t, s)
	a := newWebhook(t, s, p, base, seald.EventRecordCompleted)
	b := newWebhook(t, s, p, base.Add(time.Second), seald.EventTypes...)
	newWebhook(t, s, other, base, seald.EventRecordFailed)

	got, err := s.Webhook(ctx, a.ID)
	ok(t, "Webhook", err)
	equal(t, "Webhook", got, a)
	list, err := s.ProjectWebhooks(ctx, p.ProjectID)
	ok(t, "ProjectWebhooks", err)
	equal(t, "ProjectWebhooks", list, []*seald.Webhook{a, b})

	ok(t, "DeleteWebhook", s.DeleteWebhook(ctx, a.ID, base.Add(time.Minute)))
	_, err = s.Webhook(ctx, a.ID)
	wantCode(t, "Webhook after delete", err, seald.ENOTFOUND)
	wantCode(t, "DeleteWebhook twice", s.DeleteWebhook(ctx, a.ID, base.Add(time.Minute)), seald.ENOTFOUND)
	wantCode(t, "DeleteWebhook unknown", s.DeleteWebhook(ctx, "wh_unknown", base), seald.ENOTFOUND)
	list, err = s.ProjectWebhooks(ctx, p.ProjectID)
	ok(t, "ProjectWebhooks after delete", err)
	equal(t, "ProjectWebhooks after delete", list, []*seald.Webhook{b})
	_, err = s.Delivery(ctx, "whd_unknown")
	wantCode(t, "Delivery unknown", err, seald.ENOTFOUND)
}

// An event is saved, with a delivery per webhook that asked for its type, by the change that causes it, and
// not by a change that is refused.
func testWebhookEventsWithChange(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	_, other := tenant(t, s)
	all := newWebhook(t, s, p, base, seald.EventTypes...)
	statusOnly := newWebhook(t, s, p, base, seald.EventRecordStatusChanged)
	foreign := newWebhook(t, s, other, base, seald.EventTypes...)

	// A status change.
	r := withJobs(t, s, p, &seald.Job{Kind: seald.JobNotify, RunAt: base})
	c := &seald.StatusChange{Reference: r.Reference, To: seald.StatusSuspended, Actor: "cli", At: base.Add(time.Minute)}
	c.Event = event(seald.EventRecordStatusChanged, r, c.At)
	ok(t, "ChangeStatus", s.ChangeStatus(ctx, c, seald.StatusActive))
	// A refused status change (the record is no longer ACTIVE) saves no event.
	refused := &seald.StatusChange{Reference: r.Reference, To: seald.StatusRevoked, Actor: "cli", At: base.Add(2 * time.Minute)}
	refused.Event = event(seald.EventRecordStatusChanged, r, refused.At)
	wantCode(t, "ChangeStatus from a stale status", s.ChangeStatus(ctx, refused, seald.StatusActive), seald.ECONFLICT)

	// A completion, and a completion refused because the record moved on.
	j := claimOne(t, s, base, time.Minute)
	stale := &seald.RecordUpdate{When: seald.StateAnchored, State: seald.StateCompleted, At: base.Add(3 * time.Minute)}
	stale.Event = event(seald.EventRecordCompleted, r, stale.At)
	wantCode(t, "CompleteJob of a record that moved on", s.CompleteJob(ctx, j, stale, false), seald.ECONFLICT)
	done := &seald.RecordUpdate{When: r.State, State: seald.StateCompleted, At: base.Add(4 * time.Minute)}
	done.Event = event(seald.EventRecordCompleted, r, done.At)
	ok(t, "CompleteJob", s.CompleteJob(ctx, j, done, false))

	// A failure.
	f := withJobs(t, s, p, &seald.Job{Kind: seald.JobStore, RunAt: base})
	jf := claimOne(t, s, base, time.Minute)
	failed := event(seald.EventRecordFailed, f, base.Add(5*time.Minute))
	ok(t, "FailJob", s.FailJob(ctx, jf, seald.StateFailed, seald.ErrorTypeIPFS, "gone", failed, failed.CreatedAt))

	type got struct {
		Event     string
		Type      seald.EventType
		Reference string
		State     seald.DeliveryState
	}
	summary := func(ds []*seald.Delivery) []got {
		out := []got{}
		for _, d := range ds {
			out = append(out, got{d.EventID, d.EventType, d.Reference, d.State})
		}
		return out
	}
	equal(t, "deliveries of the webhook of every event, newest first", summary(deliveries(t, s, all)), []got{
		{failed.ID, seald.EventRecordFailed, f.Reference, seald.DeliveryPending},
		{done.Event.ID, seald.EventRecordCompleted, r.Reference, seald.DeliveryPending},
		{c.Event.ID, seald.EventRecordStatusChanged, r.Reference, seald.DeliveryPending},
	})
	equal(t, "deliveries of the status webhook", summary(deliveries(t, s, statusOnly)), []got{
		{c.Event.ID, seald.EventRecordStatusChanged, r.Reference, seald.DeliveryPending},
	})
	equal(t, "deliveries of another project's webhook", summary(deliveries(t, s, foreign)), []got{})

	// Claimed, each carries what sending it needs: its webhook's URL and secret and the event's exact body.
	claimed, err := s.ClaimDeliveries(ctx, 10, base.Add(time.Hour), time.Minute)
	ok(t, "ClaimDeliveries", err)
	if len(claimed) != 4 {
		t.Fatalf("claimed %d deliveries, want 4: %s", len(claimed), show(claimed))
	}
	bodies := map[string][]byte{c.Event.ID: c.Event.Body, done.Event.ID: done.Event.Body, failed.ID: failed.Body}
	hooks := map[string]*seald.Webhook{all.ID: all, statusOnly.ID: statusOnly}
	for _, d := range claimed {
		w := hooks[d.WebhookID]
		if w == nil || d.URL != w.URL || d.Secret != w.Secret || string(d.Body) != string(bodies[d.EventID]) {
			t.Errorf("claimed delivery %s: url %q secret %q body %s; want its webhook's and its event's", d.ID, d.URL, d.Secret, d.Body)
		}
		if !d.LeasedUntil.Equal(base.Add(time.Hour + time.Minute)) {
			t.Errorf("claimed delivery %s leased until %v", d.ID, d.LeasedUntil)
		}
	}
}

// An event no webhook asked for is not kept.
func testWebhookNoEventWithoutHook(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	newWebhook(t, s, p, base, seald.EventRecordFailed)
	r := withJobs(t, s, p)
	c := &seald.StatusChange{Reference: r.Reference, To: seald.StatusSuspended, Actor: "cli", At: base.Add(time.Minute)}
	c.Event = event(seald.EventRecordStatusChanged, r, c.At)
	ok(t, "ChangeStatus", s.ChangeStatus(ctx, c, seald.StatusActive))
	claimed, err := s.ClaimDeliveries(ctx, 10, base.Add(time.Hour), time.Minute)
	ok(t, "ClaimDeliveries", err)
	equal(t, "claimed deliveries", len(claimed), 0)
	raw := rawSQL(t, s)
	n, err := raw.QueryInt(ctx, "SELECT count(*) FROM webhook_events")
	ok(t, "count events", err)
	equal(t, "events kept", n, int64(0))
}

func testWebhookClaimRetryDeliver(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	w := newWebhook(t, s, p, base, seald.EventTypes...)
	r := withJobs(t, s, p)
	c := &seald.StatusChange{Reference: r.Reference, To: seald.StatusSuspended, Actor: "cli", At: base}
	c.Event = event(seald.EventRecordStatusChanged, r, base)
	ok(t, "ChangeStatus", s.ChangeStatus(ctx, c, seald.StatusActive))

	none, err := s.ClaimDeliveries(ctx, 10, base.Add(-time.Millisecond), time.Minute)
	ok(t, "ClaimDeliveries before due", err)
	equal(t, "claimed before due", len(none), 0)
	first, err := s.ClaimDeliveries(ctx, 10, base, time.Minute)
	ok(t, "ClaimDeliveries", err)
	if len(first) != 1 {
		t.Fatalf("claimed %d, want 1", len(first))
	}
	again, err := s.ClaimDeliveries(ctx, 10, base.Add(time.Second), time.Minute)
	ok(t, "ClaimDeliveries while leased", err)
	equal(t, "claimed while leased", len(again), 0)

	// A failed try: retried later, the try visible meanwhile.
	d := first[0]
	d.Attempts, d.RunAt, d.LastAttemptAt, d.LastStatusCode, d.LastError = 1, base.Add(time.Hour), base.Add(time.Second), 503, "503 Service Unavailable"
	d.UpdatedAt = base.Add(time.Second)
	ok(t, "SaveAttempt retry", s.SaveAttempt(ctx, d))
	got, err := s.Delivery(ctx, d.ID)
	ok(t, "Delivery", err)
	want := &seald.Delivery{ID: d.ID, WebhookID: w.ID, EventID: c.Event.ID, EventType: seald.EventRecordStatusChanged,
		Reference: r.Reference, State: seald.DeliveryPending, Attempts: 1, RunAt: base.Add(time.Hour),
		LastAttemptAt: base.Add(time.Second), LastStatusCode: 503, LastError: "503 Service Unavailable",
		CreatedAt: base, UpdatedAt: base.Add(time.Second)}
	equal(t, "delivery after a failed try", got, want)
	wantCode(t, "SaveAttempt without the lease", s.SaveAttempt(ctx, d), seald.ECONFLICT)

	early, err := s.ClaimDeliveries(ctx, 10, base.Add(time.Hour-time.Millisecond), time.Minute)
	ok(t, "ClaimDeliveries before the retry", err)
	equal(t, "claimed before the retry", len(early), 0)
	// A lease that ran out is taken over; the first holder's save is then refused.
	second, err := s.ClaimDeliveries(ctx, 10, base.Add(time.Hour), time.Minute)
	ok(t, "ClaimDeliveries at the retry", err)
	if len(second) != 1 || second[0].ID != d.ID {
		t.Fatalf("claimed %s at the retry, want %s", show(second), d.ID)
	}
	third, err := s.ClaimDeliveries(ctx, 10, base.Add(time.Hour+2*time.Minute), time.Minute)
	ok(t, "ClaimDeliveries after the lease", err)
	if len(third) != 1 {
		t.Fatalf("claimed %d after the lease ran out, want 1", len(third))
	}
	stale := second[0]
	stale.State, stale.UpdatedAt = seald.DeliveryDelivered, base.Add(2*time.Hour)
	wantCode(t, "SaveAttempt of an expired lease", s.SaveAttempt(ctx, stale), seald.ECONFLICT)

	ok3 := third[0]
	ok3.State, ok3.Attempts, ok3.LastAttemptAt, ok3.LastStatusCode, ok3.LastError = seald.DeliveryDelivered, 2, base.Add(2*time.Hour), 204, ""
	ok3.UpdatedAt = base.Add(2 * time.Hour)
	ok(t, "SaveAttempt delivered", s.SaveAttempt(ctx, ok3))
	got, err = s.Delivery(ctx, d.ID)
	ok(t, "Delivery", err)
	if got.State != seald.DeliveryDelivered || got.Attempts != 2 || got.LastStatusCode != 204 || !got.LeasedUntil.IsZero() {
		t.Errorf("delivered delivery = %s", show(got))
	}
	after, err := s.ClaimDeliveries(ctx, 10, base.Add(48*time.Hour), time.Minute)
	ok(t, "ClaimDeliveries after delivery", err)
	equal(t, "claimed after delivery", len(after), 0)
}

// Several stores claiming at once never get the same delivery.
func testWebhookClaimConcurrent(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	newWebhook(t, s, p, base, seald.EventTypes...)
	const n = 40
	for range n {
		r := withJobs(t, s, p)
		c := &seald.StatusChange{Reference: r.Reference, To: seald.StatusSuspended, Actor: "cli", At: base}
		c.Event = event(seald.EventRecordStatusChanged, r, base)
		ok(t, "ChangeStatus", s.ChangeStatus(ctx, c, seald.StatusActive))
	}
	stores := []seald.Store{s, reopen(t, s), reopen(t, s)}
	var mu sync.Mutex
	var ids []string
	var wg sync.WaitGroup
	for _, st := range stores {
		wg.Go(func() {
			for {
				got, err := st.ClaimDeliveries(ctx, 3, base.Add(time.Minute), time.Hour)
				if err != nil {
					t.Errorf("ClaimDeliveries: %v", err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, d := range got {
					ids = append(ids, d.ID)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.Sort(ids)
	if len(ids) != n || len(slices.Compact(ids)) != n {
		t.Errorf("claimed %d deliveries (%d distinct), want each of %d once", len(ids), len(slices.Compact(ids)), n)
	}
}

// A replay is a new delivery of the same event.
func testWebhookReplay(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	w := newWebhook(t, s, p, base, seald.EventTypes...)
	r := withJobs(t, s, p)
	c := &seald.StatusChange{Reference: r.Reference, To: seald.StatusSuspended, Actor: "cli", At: base}
	c.Event = event(seald.EventRecordStatusChanged, r, base)
	ok(t, "ChangeStatus", s.ChangeStatus(ctx, c, seald.StatusActive))
	orig := deliveries(t, s, w)[0]
	replay := &seald.Delivery{ID: "whd_replay" + randomHex(4), WebhookID: w.ID, EventID: orig.EventID,
		State: seald.DeliveryPending, RunAt: base.Add(time.Hour), CreatedAt: base.Add(time.Hour), UpdatedAt: base.Add(time.Hour)}
	ok(t, "AddDelivery", s.AddDelivery(ctx, replay))
	ds := deliveries(t, s, w)
	if len(ds) != 2 || ds[0].ID != replay.ID || ds[0].EventID != orig.EventID || ds[1].ID != orig.ID {
		t.Errorf("deliveries after the replay = %s", show(ds))
	}
	claimed, err := s.ClaimDeliveries(ctx, 10, base.Add(time.Hour), time.Minute)
	ok(t, "ClaimDeliveries", err)
	if len(claimed) != 2 || string(claimed[0].Body) != string(claimed[1].Body) {
		t.Errorf("claimed %s, want the original and the replay with one body", show(claimed))
	}
	bad := &seald.Delivery{ID: "whd_bad" + randomHex(4), WebhookID: w.ID, EventID: "evt_unknown", State: seald.DeliveryPending,
		RunAt: base, CreatedAt: base, UpdatedAt: base}
	if err := s.AddDelivery(ctx, bad); err == nil {
		t.Error("AddDelivery of an unknown event succeeded")
	}
}

func testWebhookDeleteFailsPending(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	w := newWebhook(t, s, p, base, seald.EventTypes...)
	r := withJobs(t, s, p)
	c := &seald.StatusChange{Reference: r.Reference, To: seald.StatusSuspended, Actor: "cli", At: base}
	c.Event = event(seald.EventRecordStatusChanged, r, base)
	ok(t, "ChangeStatus", s.ChangeStatus(ctx, c, seald.StatusActive))
	d := deliveries(t, s, w)[0]
	ok(t, "DeleteWebhook", s.DeleteWebhook(ctx, w.ID, base.Add(time.Minute)))
	got, err := s.Delivery(ctx, d.ID)
	ok(t, "Delivery", err)
	if got.State != seald.DeliveryFailed || got.LastError == "" {
		t.Errorf("pending delivery of a deleted webhook = %s, want FAILED with a reason", show(got))
	}
	claimed, err := s.ClaimDeliveries(ctx, 10, base.Add(time.Hour), time.Minute)
	ok(t, "ClaimDeliveries", err)
	equal(t, "claimed after delete", len(claimed), 0)
}
