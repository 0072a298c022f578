package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"seald"
	"seald/ipfs"
	"seald/mail"
)

// parts are the adapters serve runs with, chosen by an explicit switch on the configuration.
type parts struct {
	blobs     seald.BlobStore
	gateway   http.Handler
	validCID  func(string) bool
	anchorers map[string]seald.Anchorer
	chains    map[string]seald.Chain
	mailer    seald.Mailer
	page      http.Handler
	checks    map[string]func(ctx context.Context) error
}

func openParts(ctx context.Context, cfg *Config, logger *slog.Logger, closers *closeList) (*parts, error) {
	p := &parts{
		anchorers: map[string]seald.Anchorer{},
		chains:    map[string]seald.Chain{},
		checks:    map[string]func(context.Context) error{},
		validCID:  func(s string) bool { _, err := ipfs.ParseCID(s); return err == nil },
	}

	// IPFS: the embedded block store, or a Kubo RPC endpoint.
	switch {
	case cfg.IPFS == "" || cfg.IPFS == "embedded":
		e, err := ipfs.OpenEmbedded(filepath.Join(cfg.DataDir, "ipfs"))
		if err != nil {
			return nil, fmt.Errorf("open embedded IPFS: %w", err)
		}
		closers.add("ipfs", e.Close)
		p.blobs = e
		p.gateway = ipfs.NewGateway(e)
	case strings.HasPrefix(cfg.IPFS, "http://") || strings.HasPrefix(cfg.IPFS, "https://"):
		k, err := ipfs.NewKubo(cfg.IPFS, nil)
		if err != nil {
			return nil, fmt.Errorf("--ipfs: %w", err)
		}
		p.blobs = k
		p.gateway = ipfs.NewGateway(k)
		p.checks["ipfs"] = func(ctx context.Context) error { _, err := k.Get(ctx, emptyFileCID); return ignoreNotFound(err) }
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
	p.mailer = m
	if smtp, ok := m.(*mail.SMTP); ok {
		p.checks["smtp"] = smtp.Ping
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

// ready runs the readiness checks of the parts and the store.
func (p *parts) ready(store seald.Store) func(r *http.Request) map[string]error {
	return func(r *http.Request) map[string]error {
		out := map[string]error{}
		_, err := store.CountBusinesses(r.Context())
		out["store"] = err
		for name, check := range p.checks {
			// A part that does not answer within a few seconds is not ready; the probe must not hang.
			ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
			out[name] = check(ctx)
			cancel()
		}
		return out
	}
}
