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
	// BatchFailed reports a batch whose transaction reverted on a network; its records go back to the queue.
	BatchFailed(network string, size int)
	// MailSent reports one attempt to send a record's e-mail.
	MailSent(ok bool)
	// BlobStored reports an envelope put into IPFS, by its size in bytes.
	BlobStored(bytes int)
	// Leading reports that this process took (true) or gave up (false) the anchor leadership of a network.
	Leading(network string, leading bool)
}

// Crash points, named for the crash tests.
const (
	CrashAfterIPFSAdd    = "after-ipfs-add"    // the envelope is in IPFS, its CID not saved
	CrashAfterSign       = "after-sign"        // a batch transaction is signed and saved, not sent
	CrashAfterBroadcast  = "after-broadcast"   // the batch transaction is sent, the send not saved
	CrashAfterMailSend   = "after-mail-send"   // the e-mail is sent, the send not saved
	CrashAfterMailAppend = "after-mail-append" // the outbox: the message is written to the mbox, its sent.log line not
	CrashAfterMailLog    = "after-mail-log"    // the outbox: the message and its sent.log line are written, not synced
	CrashAfterConfirmTx  = "after-confirm"     // the batch is confirmed on chain, not saved
	CrashAfterRecordSave = "after-record-save" // Service: the record and its first job are committed, no answer sent
	CrashAfterEraseSave  = "after-erase-save"  // Service and erase job: an erasure is committed, its copy not deleted
	CrashAfterBlobDelete = "after-blob-delete" // the erased record's copy is deleted, its job not completed
)
