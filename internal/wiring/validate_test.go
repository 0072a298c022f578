package wiring

import (
	"strings"
	"testing"
	"time"

	"seald.dev/seald/httpapi"
	"seald.dev/seald/pipeline"
	"seald.dev/seald/webhook"
)

// serveConfig is serve's configuration with the given flags.
func serveConfig(t *testing.T, args ...string) Config {
	t.Helper()
	var cfg Config
	if err := Parse(FlagSet("serve", &cfg, true), args, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The engine is PostgreSQL only for a postgres:// or postgresql:// URL: a SQLite file whose name begins with
// "postgres" is SQLite.
func TestUsesPostgres(t *testing.T) {
	for spec, want := range map[string]bool{
		"postgres://u@h/db": true, "postgresql://u@h/db": true,
		"postgres.db": false, "./postgres.db": false, "postgres": false, "postgresdb/seald.db": false,
		"/var/lib/postgres/seald.db": false, "": false, "file:seald.db?mode=rwc": false,
	} {
		cfg := Config{DataDir: "/data", Database: spec}
		if got := cfg.UsesPostgres(); got != want {
			t.Errorf("--database %q: UsesPostgres %v, want %v", spec, got, want)
		}
	}
}

func TestEmbeddedPredicates(t *testing.T) {
	for _, c := range []struct {
		ipfs, chain       string
		embIPFS, embChain bool
	}{
		{"", "", true, true},
		{"embedded", "embedded", true, true},
		{"http://127.0.0.1:5001", "http://127.0.0.1:8545", false, false},
	} {
		cfg := Config{IPFS: c.ipfs, Chain: c.chain}
		if cfg.EmbeddedIPFS() != c.embIPFS || cfg.EmbeddedChain() != c.embChain {
			t.Errorf("--ipfs %q --chain %q: embedded IPFS %v, chain %v", c.ipfs, c.chain, cfg.EmbeddedIPFS(), cfg.EmbeddedChain())
		}
	}
}

// serve's defaults are those of the packages that use them, and they pass Validate.
func TestDefaultsFromPackages(t *testing.T) {
	cfg := serveConfig(t)
	if err := cfg.Validate(); err != nil {
		t.Fatalf("the defaults do not validate: %v", err)
	}
	if cfg.Workers != pipeline.DefaultWorkers || cfg.JobLease != pipeline.DefaultLease ||
		cfg.BatchSize != pipeline.DefaultAnchor.MaxRecords || cfg.BatchWait != pipeline.DefaultAnchor.MaxWait ||
		cfg.BodyLimit != httpapi.DefaultBodyLimit || cfg.WebhookRetryMin != pipeline.DefaultWebhookRetry.Min ||
		cfg.WebhookRetryMax != pipeline.DefaultWebhookRetry.Max || cfg.WebhookRetryFor != pipeline.DefaultWebhookRetry.For {
		t.Errorf("defaults differ from the packages': %+v", cfg)
	}
	if got := cfg.WebhookAttemptTimeout(); got != webhook.DefaultTimeout {
		t.Errorf("webhook attempt timeout %s, want %s", got, webhook.DefaultTimeout)
	}
	cfg.JobLease = 8 * time.Second
	if got := cfg.WebhookAttemptTimeout(); got != 4*time.Second {
		t.Errorf("with a job lease of 8s, webhook attempt timeout %s, want half of it", got)
	}
}

// Every start check is made by Validate, each naming its flag.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--retention-every", "0"}, "--retention-every must be above 0"},
		{[]string{"--webhook-timeout", "3m"}, "--webhook-timeout must be above 0 and below --job-lease (2m0s)"},
		{[]string{"--webhook-timeout", "-1s"}, "--webhook-timeout must be above 0"},
		{[]string{"--job-lease", "1ns"}, "--webhook-timeout must be above 0"}, // the derived default is 0
		{[]string{"--webhook-allow", "not an address/99"}, "--webhook-allow:"},
		{[]string{"--tls-cert", "cert.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"--tls-key", "key.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"--log-level", "loud"}, "--log-level:"},
		{[]string{"--ipfs", "ipfs.example:5001"}, "--ipfs must be embedded or an http:// URL"},
		{[]string{"--metrics", "nine"}, "--metrics must be api, off or host:port"},
		{[]string{"--contract-transfer-events", "all"}, "--contract-transfer-events must be consecutive or per-token"},
		{[]string{"--tx-type", "fast"}, "--tx-type:"},
		{[]string{"--eos-gas-price-ceiling", "-3"}, "--eos-gas-price-ceiling:"},
	} {
		cfg := serveConfig(t, c.args...)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: Validate() = %v, want %q", c.args, err, c.want)
		}
	}
	for _, ok := range [][]string{
		{"--tls-cert", "cert.pem", "--tls-key", "key.pem"},
		{"--metrics", "127.0.0.1:0"}, {"--metrics", "off"},
		{"--ipfs", "https://kubo.example:5001"},
		{"--webhook-timeout", "0", "--job-lease", "10s"},
		{"--webhook-allow", "10.0.0.0/8,hooks.internal"},
	} {
		cfg := serveConfig(t, ok...)
		if err := cfg.Validate(); err != nil {
			t.Errorf("%v: %v", ok, err)
		}
	}
}
