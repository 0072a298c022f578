package seald

import "time"

// Observer is told what the pipeline does, for metrics. The domain defines it so that it imports no metrics
// library; package prom implements it for Prometheus. Every method must be cheap and must not block: it is
// called on the pipeline's hot path. A nil Observer in Pipeline observes nothing.
type Observer interface {
	// StepDone reports one run of a pipeline step (a job kind: store, notify, finish, revoke:NETWORK) and
	// how it ended: err is nil on success.
	StepDone(step string, d time.Duration, err error)
	// BatchAnchored reports a batch confirmed on a network: its record count and the gas its transaction
	// used (0 when the Anchorer does not know).
	BatchAnchored(network string, size int, gasUsed uint64)
	// MailSent reports one attempt to send a record's e-mail.
	MailSent(ok bool)
	// BlobStored reports an envelope put into IPFS, by its size in bytes.
	BlobStored(bytes int)
	// Leading reports that this process took (true) or gave up (false) the anchor leadership of a network.
	Leading(network string, leading bool)
}

// nopObserver is the Observer of a Pipeline without one.
type nopObserver struct{}

func (nopObserver) StepDone(string, time.Duration, error) {}
func (nopObserver) BatchAnchored(string, int, uint64)     {}
func (nopObserver) MailSent(bool)                         {}
func (nopObserver) BlobStored(int)                        {}
func (nopObserver) Leading(string, bool)                  {}
