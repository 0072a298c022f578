package wiring

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/ipfs"
	"seald.dev/seald/mail"
)

// Parts are the adapters serve runs with, chosen by an explicit switch on the configuration.
type Parts struct {
	Blobs     seald.BlobStore
	Gateway   http.Handler
	ValidCID  func(string) bool
	Anchorers map[string]seald.Anchorer
	Chains    map[string]seald.Chain
	Mailer    seald.Mailer
	Page      http.Handler
	Checks    map[string]func(ctx context.Context) error
}

// OpenParts opens the adapters the configuration names, each closed by closers.
func OpenParts(ctx context.Context, cfg *Config, logger *slog.Logger, closers *CloseList) (*Parts, error) {
	p := &Parts{
		Anchorers: map[string]seald.Anchorer{},
		Chains:    map[string]seald.Chain{},
		Checks:    map[string]func(context.Context) error{},
		ValidCID:  func(s string) bool { _, err := ipfs.ParseCID(s); return err == nil },
	}

	// IPFS: the embedded block store, or a Kubo RPC endpoint.
	switch {
	case cfg.EmbeddedIPFS():
		e, err := ipfs.OpenEmbedded(filepath.Join(cfg.DataDir, "ipfs"), ipfs.WithLogger(logger))
		if err != nil {
			return nil, fmt.Errorf("open embedded IPFS: %w", err)
		}
		closers.Add("ipfs", e.Close)
		p.Blobs = e
		p.Gateway = ipfs.NewGateway(e)
	case strings.HasPrefix(cfg.IPFS, "http://") || strings.HasPrefix(cfg.IPFS, "https://"):
		k, err := ipfs.NewKubo(cfg.IPFS, nil)
		if err != nil {
			return nil, fmt.Errorf("--ipfs: %w", err)
		}
		p.Blobs = k
		p.Gateway = ipfs.NewGateway(k)
		p.Checks["ipfs"] = func(ctx context.Context) error { _, err := k.Get(ctx, emptyFileCID); return ignoreNotFound(err) }
	default:
		return nil, fmt.Errorf("--ipfs must be embedded or an http:// URL of a Kubo RPC API")
	}

	// Chains.
	if err := openChains(ctx, cfg, logger, p, closers); err != nil {
		return nil, err
	}

	// E-mail: the outbox, or SMTP.
	m, err := mail.Open(cfg.SMTP, cfg.MailFrom, filepath.Join(cfg.DataDir, "outbox"))
	if err != nil {
		return nil, fmt.Errorf("--smtp: %w", err)
	}
	p.Mailer = m
	if o, ok := m.(*mail.Outbox); ok {
		// At start rather than at the first e-mail: a torn end is repaired and the .eml files of an
		// earlier version are moved into the mbox before anything else is appended, and a fault shows now.
		if err := o.Recover(); err != nil {
			return nil, err
		}
		closers.Add("outbox", o.Close)
	}
	if smtp, ok := m.(*mail.SMTP); ok {
		p.Checks["smtp"] = smtp.Ping
	}
	return p, nil
}

// emptyFileCID is the CID of zero bytes, asked of Kubo to see that it answers.
const emptyFileCID = "bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku"

func ignoreNotFound(err error) error {
	if seald.ErrorCode(err) == seald.ENOTFOUND {
		return nil
	}
	return err
}

// Ready runs the readiness checks of the parts and the store.
func (p *Parts) Ready(store seald.Store) func(r *http.Request) map[string]error {
	return func(r *http.Request) map[string]error {
		out := map[string]error{}
		_, err := store.CountBusinesses(r.Context())
		out["store"] = err
		for name, check := range p.Checks {
			// A part that does not answer within a few seconds is not ready; the probe must not hang.
			ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
			out[name] = check(ctx)
			cancel()
		}
		return out
	}
}
