package wiring

import (
	"flag"
	"fmt"
	"math/big"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/httpapi"
	"seald.dev/seald/pipeline"
	"seald.dev/seald/secret"
	"seald.dev/seald/webhook"
)

// Config is everything seald is configured with, read once from flags and SEALD_* variables; no package
// reads the environment itself.
type Config struct {
	DataDir     string
	Database    string
	SecretsFile string

	Addr      string
	PublicURL string
	TLSCert   string
	TLSKey    string
	BodyLimit int64
	Rate      float64
	RateBurst int
	// PasswordMemory is the memory, in MiB, all password hashing may take at once (64 MiB a hash).
	PasswordMemory int64
	// TrustedProxies are the proxies whose X-Forwarded-For names the client of a failed authentication.
	TrustedProxies Prefixes
	LogLevel       string

	IPFS           string
	IPFSGatewayURL string

	Chain         string
	ChainKeyFile  string
	ChainRPCAddr  string
	Confirmations uint64
	// Finality and EOSFinality are each network's finality rule: auto, finalized or confirmations.
	Finality    string
	EOSFinality string
	// TxType and GasPriceCeiling price POLYGON's transactions on a --chain URL: auto, legacy or dynamic,
	// and the highest max fee per gas or gas price, in gwei.
	TxType          string
	GasPriceCeiling string
	// AnchorGasLimit fixes the gas limit of anchor transactions (0: estimated).
	AnchorGasLimit uint64
	// TransferEvents is how a contract seald deploys announces minted tokens: consecutive or per-token.
	TransferEvents string
	EOSChain       string
	EOSKeyFile     string
	EOSContract    string
	// EOSChainID is the chain id --eos-chain must serve: 17777 (EOS EVM mainnet) unless told otherwise.
	EOSChainID uint64
	// EOSConfirmations are EOS's confirmations; not set, EOS takes --confirmations.
	EOSConfirmations   OptionalUint
	EOSTxType          string
	EOSGasPriceCeiling string
	Contract           string
	BatchSize          int
	BatchWait          time.Duration

	SMTP     string
	MailFrom string

	Workers int
	// MaxBacklog refuses new records with 503 while this many wait in the pipeline (0: never).
	MaxBacklog int
	// MaxProjectBacklog refuses a project's new records with 503 while this many of its records wait (0: no
	// bound per project, only MaxBacklog's per network).
	MaxProjectBacklog int
	JobLease          time.Duration
	// RetentionEvery is how often serve looks for records past their project's retention.
	RetentionEvery time.Duration
	Metrics        string
	// AuthCacheTTL is service.Service.CacheTTL: how long an instance trusts a key pair, business or project
	// it has read.
	AuthCacheTTL time.Duration

	// WebhookAllow lists the CIDRs, addresses and host names webhook deliveries may reach although they are
	// internal (loopback, private, link-local); WebhookRetryMin, Max and For shape their retries.
	WebhookAllow    string
	WebhookRetryMin time.Duration
	WebhookRetryMax time.Duration
	WebhookRetryFor time.Duration
	WebhookTimeout  time.Duration

	// ExplorerURL and EOSExplorerURL are the block explorers the verification page links to.
	ExplorerURL    string
	EOSExplorerURL string
	// PublicRPC is, per network, the public JSON-RPC node the verification page's in-browser proof check
	// asks by default (the visitor may give another). On the embedded chain POLYGON defaults to the chain's
	// own JSON-RPC (--chain-rpc-addr).
	PublicRPC PublicRPCs

	// PipelineOff runs no pipeline job runners or anchor leaders: records stay PENDING once accepted. No
	// flag sets it; sealbench does, to measure the API's intake and verification alone, with everything
	// else as serve builds it.
	PipelineOff bool
}

// FlagSet declares the flags a command takes; common says whether it is only the data dir and database
// (the operator commands) or everything (serve).
func FlagSet(name string, cfg *Config, all bool) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	StoreFlags(fs, cfg)
	if !all {
		return fs
	}
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8080", "address the API listens on")
	fs.StringVar(&cfg.PublicURL, "public-url", "", "base URL of verification links (default: http://<addr>)")
	fs.StringVar(&cfg.TLSCert, "tls-cert", "", "TLS certificate file (with --tls-key)")
	fs.StringVar(&cfg.TLSKey, "tls-key", "", "TLS private key file")
	fs.Int64Var(&cfg.BodyLimit, "body-limit", httpapi.DefaultBodyLimit, "largest request body in bytes")
	fs.Float64Var(&cfg.Rate, "rate-limit", 1000, "requests per second allowed per API key (0: no limit)")
	fs.IntVar(&cfg.RateBurst, "rate-burst", 2000, "burst of requests allowed per API key")
	fs.Int64Var(&cfg.PasswordMemory, "password-memory", secret.DefaultPasswordBudget>>20, "MiB all password hashing may take at once, 64 MiB a hash; past it a request waits up to 2 s, then gets 503")
	fs.Var(&cfg.TrustedProxies, "trusted-proxies", "comma-separated addresses or CIDRs of proxies in front of seald whose X-Forwarded-For names the client (default: none)")
	fs.StringVar(&cfg.LogLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&cfg.IPFS, "ipfs", "embedded", "embedded, or a Kubo RPC URL (http://127.0.0.1:5001)")
	fs.StringVar(&cfg.IPFSGatewayURL, "ipfs-gateway-url", "", "base of ipfs_gateway_link (default: the public URL)")
	fs.StringVar(&cfg.Chain, "chain", "embedded", "embedded, or the JSON-RPC URL of an EVM node for POLYGON")
	fs.StringVar(&cfg.ChainKeyFile, "chain-key-file", "", "hex private key file of the signer (with --chain URL)")
	fs.StringVar(&cfg.Contract, "contract", "", "SealRegistry address on the --chain network (deployed when empty)")
	fs.StringVar(&cfg.ChainRPCAddr, "chain-rpc-addr", "127.0.0.1:8545", "where the embedded chain serves JSON-RPC (empty: off)")
	fs.Uint64Var(&cfg.Confirmations, "confirmations", 0, "blocks after inclusion before a POLYGON batch counts as anchored (the confirmations rule, or when the node answers no finalized block)")
	fs.StringVar(&cfg.Finality, "finality", "auto", "when a POLYGON batch counts as anchored: finalized (the node's finalized block), confirmations (--confirmations), or auto (finalized on Polygon PoS and Amoy, confirmations elsewhere)")
	fs.StringVar(&cfg.EOSFinality, "eos-finality", "auto", "when an EOS batch counts as anchored: finalized, confirmations (--eos-confirmations), or auto (confirmations)")
	fs.StringVar(&cfg.TxType, "tx-type", "auto", "POLYGON transactions on a --chain URL: auto (EIP-1559 when the chain has a base fee, else legacy at eth_gasPrice), legacy or dynamic")
	fs.StringVar(&cfg.GasPriceCeiling, "gas-price-ceiling", "1000", "highest max fee per gas (or legacy gas price) of POLYGON transactions, replacements included, in gwei")
	fs.StringVar(&cfg.TransferEvents, "contract-transfer-events", "consecutive", "for a contract seald deploys: consecutive (one ERC-2309 event per batch) or per-token (one ERC-721 Transfer per token, for indexers that ignore ERC-2309)")
	fs.Uint64Var(&cfg.AnchorGasLimit, "anchor-gas-limit", 0, "fixed gas limit of every anchoring transaction (0: estimate each; for nodes whose estimates cannot be trusted)")
	fs.StringVar(&cfg.EOSChain, "eos-chain", "", "JSON-RPC URL of the EOS EVM node (empty: EOS off)")
	fs.StringVar(&cfg.EOSKeyFile, "eos-key-file", "", "hex private key file of the EOS EVM signer")
	fs.StringVar(&cfg.EOSContract, "eos-contract", "", "SealRegistry address on EOS EVM (deployed when empty)")
	fs.Uint64Var(&cfg.EOSChainID, "eos-chain-id", 17777, "chain id --eos-chain must serve: 17777 EOS EVM mainnet, 15557 EOS EVM testnet")
	fs.Var(&cfg.EOSConfirmations, "eos-confirmations", "blocks after inclusion before an EOS batch counts as anchored (default: 12 on EOS EVM mainnet and testnet, else --confirmations)")
	fs.StringVar(&cfg.EOSTxType, "eos-tx-type", "auto", "EOS transactions: auto (legacy at eth_gasPrice while EOS EVM has no base fee), legacy or dynamic")
	fs.StringVar(&cfg.EOSGasPriceCeiling, "eos-gas-price-ceiling", "1000", "highest gas price (or max fee per gas) of EOS transactions, replacements included, in gwei")
	fs.StringVar(&cfg.ExplorerURL, "explorer-url", "", "block explorer of POLYGON for the verification page (https://polygonscan.com; empty: no links)")
	fs.StringVar(&cfg.EOSExplorerURL, "eos-explorer-url", "", "block explorer of EOS EVM for the verification page (empty: no links)")
	fs.Var(&cfg.PublicRPC, "public-rpc", "public JSON-RPC node of each network for the verification page's in-browser proof check, as NETWORK=URL[,NETWORK=URL] (POLYGON=https://polygon-rpc.com); visitors may give another; the embedded chain's default is its --chain-rpc-addr")
	fs.IntVar(&cfg.BatchSize, "batch-size", pipeline.DefaultAnchor.MaxRecords, "records per anchoring batch at most")
	fs.DurationVar(&cfg.BatchWait, "batch-wait", pipeline.DefaultAnchor.MaxWait, "upper bound of a wait in the anchoring step (a revocation waiting for its token); batches leave as soon as none is in flight")
	fs.StringVar(&cfg.SMTP, "smtp", "outbox", "outbox, or smtp://user:pass@host:port[?tls=required|opportunistic|none], or smtps://...")
	fs.StringVar(&cfg.MailFrom, "mail-from", "seald <seald@localhost>", "From address of notification e-mail")
	fs.IntVar(&cfg.Workers, "workers", pipeline.DefaultWorkers, "concurrent pipeline job runners (their writes are committed in groups)")
	fs.IntVar(&cfg.MaxBacklog, "max-backlog", 100000, "records of one network waiting in the pipeline past which new seals are refused with 503 and Retry-After (0: never)")
	fs.IntVar(&cfg.MaxProjectBacklog, "max-project-backlog", 0, "records of one project waiting in the pipeline past which that project's new seals are refused with 503 and Retry-After (0: no bound per project)")
	fs.DurationVar(&cfg.RetentionEvery, "retention-every", time.Minute, "how often to erase the stored copies of records past their project's retention (tenant --retain)")
	fs.DurationVar(&cfg.JobLease, "job-lease", pipeline.DefaultLease, "how long a claimed job is reserved for its instance; a killed instance's jobs wait this long (those claimed ahead of a free runner up to a quarter, at most 10 s, more)")
	fs.DurationVar(&cfg.AuthCacheTTL, "auth-cache-ttl", seald.DefaultCacheTTL, "how long an instance trusts a key pair, business or project it has read; a key revoked or rotated elsewhere stops working here within it (0: read the store on every request)")
	fs.StringVar(&cfg.WebhookAllow, "webhook-allow", "", "comma-separated CIDRs, addresses or host names that webhook deliveries may reach although internal (loopback, private, link-local are refused otherwise)")
	fs.DurationVar(&cfg.WebhookRetryMin, "webhook-retry-min", pipeline.DefaultWebhookRetry.Min, "wait before the first retry of a failed webhook delivery; it doubles at each failure")
	fs.DurationVar(&cfg.WebhookRetryMax, "webhook-retry-max", pipeline.DefaultWebhookRetry.Max, "longest wait between retries of a webhook delivery")
	fs.DurationVar(&cfg.WebhookRetryFor, "webhook-retry-for", pipeline.DefaultWebhookRetry.For, "how long a webhook delivery is retried before it is marked FAILED")
	fs.DurationVar(&cfg.WebhookTimeout, "webhook-timeout", 0, "how long one webhook delivery attempt may take, connection and answer (0: "+webhook.DefaultTimeout.String()+", or half of --job-lease when that is shorter)")
	fs.StringVar(&cfg.Metrics, "metrics", "api", "Prometheus metrics: api (GET /metrics on the API listener), off, or host:port of a separate listener")
	return fs
}

// StoreFlags declares the flags that name a store: --data-dir, --database and --secrets-file.
func StoreFlags(fs *flag.FlagSet, cfg *Config) {
	SecretsFlags(fs, cfg)
	fs.StringVar(&cfg.Database, "database", "", "SQLite file path, or a postgres:// URL (default: <data-dir>/seald.db)")
}

// SecretsFlags declares the flags that name the secrets file only (--data-dir and --secrets-file), for the
// commands that change the service's keys and nothing in the store.
func SecretsFlags(fs *flag.FlagSet, cfg *Config) {
	fs.StringVar(&cfg.DataDir, "data-dir", "./seald-data", "directory for the embedded store, IPFS blocks, chain, outbox and keys")
	fs.StringVar(&cfg.SecretsFile, "secrets-file", "", "the service's keys, created at first start; every instance on one database needs the same file (default: <data-dir>/secrets.json)")
}

// Parse reads flags, then fills every flag not given on the command line from SEALD_<NAME> (upper case,
// dashes as underscores).
// EmptyValue is what the getenv of Environ answers for a variable that is set to the empty string, so that
// Parse can tell "set, empty" (the flag takes the empty value: SEALD_CHAIN_RPC_ADDR= turns the chain's
// JSON-RPC off) from "not set" (the flag keeps its default). Read single variables with Value.
const EmptyValue = "\x00"

// Environ is the process environment as the commands read it: lookup's value, EmptyValue for a variable
// set to "", "" for one not set.
func Environ(lookup func(string) (string, bool)) func(string) string {
	return func(k string) string {
		v, ok := lookup(k)
		if ok && v == "" {
			return EmptyValue
		}
		return v
	}
}

// Value is a variable's value as read through Environ: EmptyValue is "".
func Value(v string) string {
	if v == EmptyValue {
		return ""
	}
	return v
}

func Parse(fs *flag.FlagSet, args []string, getenv func(string) string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || err != nil {
			return
		}
		env := "SEALD_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := getenv(env); v != "" {
			if e := f.Value.Set(Value(v)); e != nil {
				err = fmt.Errorf("%s: %v", env, e)
			}
		}
	})
	return err
}

// Prefixes is a comma-separated list of addresses or CIDRs, as a flag.
type Prefixes []netip.Prefix

func (p *Prefixes) String() string {
	s := make([]string, len(*p))
	for i, x := range *p {
		s[i] = x.String()
	}
	return strings.Join(s, ",")
}

func (p *Prefixes) Set(v string) error {
	*p = nil
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		x, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return fmt.Errorf("%q is not an address or CIDR", f)
			}
			x = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		*p = append(*p, x.Masked())
	}
	return nil
}

// PublicRPCs maps a network (POLYGON, EOS) to the URL of a public JSON-RPC node, as a flag:
// NETWORK=URL[,NETWORK=URL].
type PublicRPCs map[string]string

func (p *PublicRPCs) String() string {
	if p == nil {
		return ""
	}
	var s []string
	for _, n := range []string{seald.NetworkPolygon, seald.NetworkEOS} {
		if u, ok := (*p)[n]; ok {
			s = append(s, n+"="+u)
		}
	}
	return strings.Join(s, ",")
}

func (p *PublicRPCs) Set(v string) error {
	*p = PublicRPCs{}
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, u, ok := strings.Cut(f, "=")
		n, u = strings.ToUpper(strings.TrimSpace(n)), strings.TrimSpace(u)
		if !ok || (n != seald.NetworkPolygon && n != seald.NetworkEOS) {
			return fmt.Errorf("%q is not NETWORK=URL with NETWORK POLYGON or EOS", f)
		}
		if l := strings.ToLower(u); !strings.HasPrefix(l, "https://") && !strings.HasPrefix(l, "http://") || strings.ContainsAny(u, " \t\"'<>`") {
			return fmt.Errorf("%s: %q is not an http(s) URL", n, u)
		}
		(*p)[n] = u
	}
	return nil
}

func (c *Config) SecretsPath() string {
	if c.SecretsFile != "" {
		return c.SecretsFile
	}
	return filepath.Join(c.DataDir, "secrets.json")
}

func (c *Config) DatabaseSpec() string {
	if c.Database != "" {
		return c.Database
	}
	return filepath.Join(c.DataDir, "seald.db")
}

// OptionalUint is a number flag that tells "not given" from any value.
type OptionalUint struct {
	Value uint64
	Given bool
}

func (o *OptionalUint) String() string {
	if o == nil || !o.Given {
		return ""
	}
	return strconv.FormatUint(o.Value, 10)
}

func (o *OptionalUint) Set(v string) error {
	if v == "" {
		*o = OptionalUint{}
		return nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not a whole number", v)
	}
	*o = OptionalUint{Value: n, Given: true}
	return nil
}

// Or is the value when set, else def.
func (o OptionalUint) Or(def uint64) uint64 {
	if o.Given {
		return o.Value
	}
	return def
}

// ParseGwei reads an amount of gwei ("150", "0.5") as wei; it must be a positive whole number of wei.
func ParseGwei(s string) (*big.Int, error) {
	r, ok := new(big.Rat).SetString(strings.TrimSpace(s))
	if !ok {
		return nil, fmt.Errorf("%q is not a number of gwei", s)
	}
	r.Mul(r, new(big.Rat).SetInt64(1_000_000_000))
	if !r.IsInt() || r.Sign() <= 0 {
		return nil, fmt.Errorf("%q gwei is not a positive whole number of wei", s)
	}
	return new(big.Int).Set(r.Num()), nil
}
