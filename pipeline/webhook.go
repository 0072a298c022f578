package pipeline

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"seald.dev/seald"
)

// WebhookRetry says how a delivery that failed is retried: exponential backoff from Min, doubling up to Max,
// with ±20% jitter so that deliveries that failed together do not retry together, until the delivery is For
// old; then it is FAILED (and can still be replayed).
type WebhookRetry struct {
	Min, Max, For time.Duration
}

// DefaultWebhookRetry retries for a day: 10 s, 20 s, 40 s ... then hourly.
var DefaultWebhookRetry = WebhookRetry{Min: 10 * time.Second, Max: time.Hour, For: 24 * time.Hour}

// Delay returns the wait before the retry that follows the given number of failed attempts.
func (r WebhookRetry) Delay(failures int) time.Duration {
	d := r.Min
	for i := 1; i < failures && d < r.Max; i++ {
		d *= 2
	}
	d = min(d, r.Max)
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// DeliveryStore is what the Deliverer uses of the stores.
type DeliveryStore interface {
	ClaimDeliveries(ctx context.Context, limit int, now time.Time, lease time.Duration) ([]*seald.Delivery, error)
	SaveAttempt(ctx context.Context, d *seald.Delivery) error
}

// Deliverer runs the webhook deliveries: the durable jobs that the record events left in the store. Like the
// pipeline's steps, a delivery is claimed with a lease and its outcome saved afterwards, so a process killed
// mid-delivery leaves it to be sent again once the lease ends (or at the next start on an embedded store):
// the receiver may see an event twice, always with the same event id, and never misses one.
type Deliverer struct {
	Store   DeliveryStore
	Sender  seald.WebhookSender
	Secrets seald.KeyWrapper
	Retry   WebhookRetry
	// Workers is the number of deliveries sent at once (default 8).
	Workers int
	// Lease is how long a claimed delivery is reserved (default 2 minutes); it must exceed the sender's
	// timeout.
	Lease time.Duration
	// Poll is how often the deliverer looks for due deliveries when nothing woke it (default 500 ms).
	Poll   time.Duration
	Logger *slog.Logger
	Now    func() time.Time

	once   sync.Once
	wakeCh chan struct{}
}

func (d *Deliverer) init() {
	d.once.Do(func() {
		d.wakeCh = make(chan struct{}, 1)
		if d.Workers <= 0 {
			d.Workers = 8
		}
		if d.Lease <= 0 {
			d.Lease = DefaultLease
		}
		if d.Poll <= 0 {
			d.Poll = 500 * time.Millisecond
		}
		if d.Retry.Min <= 0 {
			d.Retry.Min = DefaultWebhookRetry.Min
		}
		if d.Retry.Max < d.Retry.Min {
			d.Retry.Max = max(d.Retry.Min, DefaultWebhookRetry.Max)
		}
		if d.Retry.For <= 0 {
			d.Retry.For = DefaultWebhookRetry.For
		}
		if d.Logger == nil {
			d.Logger = slog.New(slog.DiscardHandler)
		}
	})
}

func (d *Deliverer) now() time.Time {
	if d.Now != nil {
		return d.Now().UTC().Truncate(time.Millisecond)
	}
	return time.Now().UTC().Truncate(time.Millisecond)
}

// Wake tells the deliverer that a delivery may be due. It never blocks.
func (d *Deliverer) Wake() {
	d.init()
	select {
	case d.wakeCh <- struct{}{}:
	default:
	}
}

// Run sends due deliveries until ctx is done, then waits for the attempts in flight to be saved.
func (d *Deliverer) Run(ctx context.Context) error {
	d.init()
	free := make(chan struct{}, d.Workers)
	for range d.Workers {
		free <- struct{}{}
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	idle := time.NewTimer(0)
	defer idle.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-idle.C:
		case <-d.wakeCh:
		}
		for ctx.Err() == nil {
			select {
			case <-ctx.Done():
				return nil
			case <-free:
			}
			n := 1
		more:
			for n < d.Workers {
				select {
				case <-free:
					n++
				default:
					break more
				}
			}
			claimed, err := d.Store.ClaimDeliveries(ctx, n, d.now(), d.Lease)
			if err != nil && ctx.Err() == nil {
				d.Logger.Error("claim webhook deliveries", "err", err)
			}
			for range n - len(claimed) {
				free <- struct{}{}
			}
			for _, x := range claimed {
				wg.Go(func() {
					// An attempt runs to its end and is saved even when shutdown begins.
					d.attempt(context.WithoutCancel(ctx), x)
					free <- struct{}{}
				})
			}
			if len(claimed) == 0 {
				break
			}
		}
		idle.Reset(d.Poll)
	}
}

// attempt sends one delivery and saves its outcome: DELIVERED, a retry at a later time, or FAILED when the
// destination is refused for good or the delivery has been retried for Retry.For.
func (d *Deliverer) attempt(ctx context.Context, x *seald.Delivery) {
	log := d.Logger.With("delivery", x.ID, "event", x.EventID, "webhook", x.WebhookID)
	code, err := 0, error(nil)
	secret, serr := d.Secrets.OpenString(x.Secret, seald.WebhookSecretPurpose)
	if serr != nil {
		err = seald.Permanent(serr)
	} else {
		sendCtx, cancel := context.WithTimeout(ctx, d.Lease-time.Second)
		code, err = d.Sender.Send(sendCtx, x.URL, secret, x.EventID, x.EventType, x.Body, d.now())
		cancel()
	}
	now := d.now()
	x.Attempts++
	x.LastAttemptAt, x.LastStatusCode, x.UpdatedAt = now, code, now
	switch {
	case err == nil:
		x.State, x.LastError = seald.DeliveryDelivered, ""
	case seald.IsPermanent(err) || now.Sub(x.CreatedAt) >= d.Retry.For:
		x.State, x.LastError = seald.DeliveryFailed, cut(err.Error())
		log.Warn("webhook delivery failed for good", "attempts", x.Attempts, "err", err)
	default:
		x.LastError, x.RunAt = cut(err.Error()), now.Add(d.Retry.Delay(x.Attempts))
		log.Info("webhook delivery failed; will retry", "attempts", x.Attempts, "at", x.RunAt, "err", err)
	}
	saveCtx, cancel := context.WithTimeout(ctx, d.Lease)
	defer cancel()
	delay := 100 * time.Millisecond
	for {
		serr := d.Store.SaveAttempt(saveCtx, x)
		if serr == nil || seald.ErrorCode(serr) != seald.EUNAVAILABLE {
			if serr != nil {
				log.Error("save webhook delivery", "err", serr)
			}
			return
		}
		select {
		case <-saveCtx.Done():
			log.Error("save webhook delivery", "err", serr)
			return
		case <-time.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// cut bounds an error message kept with a delivery.
func cut(s string) string {
	if len(s) > 500 {
		return s[:500]
	}
	return s
}
