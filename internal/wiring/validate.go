package wiring

import (
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"seald.dev/seald/webhook"
)

// UsesPostgres reports whether the database spec names a PostgreSQL server (a postgres:// or
// postgresql:// URL). Anything else is a SQLite file, "postgres.db" too. Every choice that depends on the
// engine (which store opens, whether leases of an earlier run are void, whether embedded IPFS needs the
// database-wide lock) asks this one method, so the choices cannot disagree.
func (c *Config) UsesPostgres() bool {
	spec := c.DatabaseSpec()
	return strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://")
}

// EmbeddedIPFS reports whether envelopes are kept in the embedded IPFS block store of the data dir (--ipfs
// embedded, the default) rather than on a Kubo node.
func (c *Config) EmbeddedIPFS() bool { return c.IPFS == "" || c.IPFS == "embedded" }

// EmbeddedChain reports whether POLYGON records are anchored on the embedded development chain (--chain
// embedded, the default) rather than on a node at an RPC URL.
func (c *Config) EmbeddedChain() bool { return c.Chain == "" || c.Chain == "embedded" }

// WebhookAttemptTimeout is --webhook-timeout, or when it is 0 its derived default: webhook.DefaultTimeout,
// or half of --job-lease when that is shorter, so that an attempt always ends before its lease does.
func (c *Config) WebhookAttemptTimeout() time.Duration {
	if c.WebhookTimeout != 0 {
		return c.WebhookTimeout
	}
	return min(webhook.DefaultTimeout, c.JobLease/2)
}

// Validate checks every setting serve starts with, before anything is opened or created, and returns the
// first problem, naming its flag. Settings checked again where they are used (a file that cannot be read, an
// address in use) can only fail there.
func (c *Config) Validate() error {
	if _, err := parseLevel(c.LogLevel); err != nil {
		return err
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return fmt.Errorf("--tls-cert and --tls-key go together: give both, or neither")
	}
	if !c.EmbeddedIPFS() && !strings.HasPrefix(c.IPFS, "http://") && !strings.HasPrefix(c.IPFS, "https://") {
		return fmt.Errorf("--ipfs must be embedded or an http:// URL of a Kubo RPC API")
	}
	switch c.TransferEvents {
	case "", "consecutive", "per-token":
	default:
		return fmt.Errorf("--contract-transfer-events must be consecutive or per-token, not %q", c.TransferEvents)
	}
	// Both networks' settings are checked whether or not they are used, so a typo shows at once.
	if _, err := polygonNetwork(c); err != nil {
		return err
	}
	if _, err := eosNetwork(c); err != nil {
		return err
	}
	if c.RetentionEvery <= 0 {
		return fmt.Errorf("--retention-every must be above 0")
	}
	if _, err := webhook.ParseAllow(c.WebhookAllow); err != nil {
		return fmt.Errorf("--webhook-allow: %v", err)
	}
	if t := c.WebhookAttemptTimeout(); t <= 0 || t >= c.JobLease {
		return fmt.Errorf("--webhook-timeout must be above 0 and below --job-lease (%s)", c.JobLease)
	}
	switch c.Metrics {
	case "api", "off":
	default:
		if _, _, err := net.SplitHostPort(c.Metrics); err != nil {
			return fmt.Errorf("--metrics must be api, off or host:port: %v", err)
		}
	}
	return nil
}

// parseLevel reads --log-level.
func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return l, fmt.Errorf("--log-level: %v", err)
	}
	return l, nil
}
