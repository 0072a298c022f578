package wiring

import (
	"strings"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/evm"
)

// An environment variable set to "" gives its flag the empty value; one not set leaves the default; a flag
// given on the command line wins over both.
func TestEmptyVariableMeansEmpty(t *testing.T) {
	env := map[string]string{"SEALD_CHAIN_RPC_ADDR": "", "SEALD_PUBLIC_URL": "https://seal.example"}
	getenv := Environ(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	var cfg Config
	if err := Parse(FlagSet("serve", &cfg, true), nil, getenv); err != nil {
		t.Fatal(err)
	}
	if cfg.ChainRPCAddr != "" {
		t.Errorf("SEALD_CHAIN_RPC_ADDR= left --chain-rpc-addr at %q", cfg.ChainRPCAddr)
	}
	if cfg.PublicURL != "https://seal.example" || cfg.Addr != "127.0.0.1:8080" {
		t.Errorf("public URL %q, addr %q", cfg.PublicURL, cfg.Addr)
	}
	var flagged Config
	if err := Parse(FlagSet("serve", &flagged, true), []string{"--chain-rpc-addr", "127.0.0.1:9"}, getenv); err != nil {
		t.Fatal(err)
	}
	if flagged.ChainRPCAddr != "127.0.0.1:9" {
		t.Errorf("the flag lost to the environment: %q", flagged.ChainRPCAddr)
	}
	if Value(getenv("SEALD_CHAIN_RPC_ADDR")) != "" || Value(getenv("NOT_SET")) != "" {
		t.Error("Value does not read an empty or missing variable as empty")
	}
}

func TestParseGwei(t *testing.T) {
	for _, c := range []struct {
		in, want string
	}{{"150", "150000000000"}, {"0.5", "500000000"}, {"1000", "1000000000000"}, {"0.000000001", "1"}} {
		got, err := ParseGwei(c.in)
		if err != nil || got.String() != c.want {
			t.Errorf("ParseGwei(%q) = %v, %v; want %s wei", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "abc", "0", "-1", "0.0000000001", "1e"} {
		if got, err := ParseGwei(bad); err == nil {
			t.Errorf("ParseGwei(%q) = %s, want an error", bad, got)
		}
	}
}

// --eos-confirmations falls back to --confirmations only when it is not given, by flag or variable.
func TestEOSConfirmations(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want uint64
	}{
		{[]string{"--confirmations", "16"}, nil, 16},
		{[]string{"--confirmations", "16", "--eos-confirmations", "0"}, nil, 0},
		{[]string{"--confirmations", "16"}, map[string]string{"SEALD_EOS_CONFIRMATIONS": "3"}, 3},
	} {
		var cfg Config
		getenv := Environ(func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
		if err := Parse(FlagSet("serve", &cfg, true), c.args, getenv); err != nil {
			t.Fatal(err)
		}
		if got := cfg.EOSConfirmations.Or(cfg.Confirmations); got != c.want {
			t.Errorf("%v %v: EOS confirmations %d, want %d", c.args, c.env, got, c.want)
		}
	}
}

// The finality rule of each network: auto is finalized on Polygon PoS and its testnets only; a rule given
// is kept; a bad one is refused at start.
func TestFinalityRule(t *testing.T) {
	cases := []struct {
		network, finality string
		chainID           uint64
		want              evm.Finality
	}{
		{seald.NetworkPolygon, "auto", 137, evm.FinalityFinalized},
		{seald.NetworkPolygon, "auto", 80002, evm.FinalityFinalized},
		{seald.NetworkPolygon, "auto", 1337, evm.FinalityConfirmations},
		{seald.NetworkPolygon, "confirmations", 137, evm.FinalityConfirmations},
		{seald.NetworkEOS, "auto", 17777, evm.FinalityConfirmations},
		{seald.NetworkEOS, "finalized", 17777, evm.FinalityFinalized},
	}
	for _, c := range cases {
		n := network{name: c.network, finality: c.finality}
		if got := n.rule(c.chainID); got != c.want {
			t.Errorf("%s --finality %s on chain %d: %s, want %s", c.network, c.finality, c.chainID, got, c.want)
		}
	}
	if _, err := polygonNetwork(&Config{Finality: "safe", TxType: "auto"}); err == nil || !strings.Contains(err.Error(), "--finality") {
		t.Errorf("--finality safe: %v", err)
	}
}

// EOS on EOS EVM's own chains waits EOSFinalConfirmations blocks unless --eos-confirmations says otherwise;
// elsewhere (a development chain) and on POLYGON the flags' count stands.
func TestEOSFinalConfirmations(t *testing.T) {
	cases := []struct {
		args    []string
		network string
		chainID uint64
		want    uint64
	}{
		{nil, seald.NetworkEOS, 17777, EOSFinalConfirmations},
		{nil, seald.NetworkEOS, 15557, EOSFinalConfirmations},
		{nil, seald.NetworkEOS, 1337, 0},
		{[]string{"--confirmations", "40"}, seald.NetworkEOS, 17777, 40},
		{[]string{"--eos-confirmations", "2"}, seald.NetworkEOS, 17777, 2},
		{[]string{"--eos-confirmations", "0"}, seald.NetworkEOS, 17777, 0},
		{nil, seald.NetworkPolygon, 17777, 0},
	}
	for _, c := range cases {
		var cfg Config
		if err := Parse(FlagSet("serve", &cfg, true), c.args, Environ(func(string) (string, bool) { return "", false })); err != nil {
			t.Fatal(err)
		}
		var n network
		var err error
		if c.network == seald.NetworkEOS {
			n, err = eosNetwork(&cfg)
		} else {
			n, err = polygonNetwork(&cfg)
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := n.blocks(c.chainID); got != c.want {
			t.Errorf("%s %v on chain %d: %d confirmations, want %d", c.network, c.args, c.chainID, got, c.want)
		}
	}
}

// --public-rpc (and SEALD_PUBLIC_RPC) takes NETWORK=URL pairs, and refuses an unknown network or a URL that
// is not http(s), which the page would offer visitors.
func TestPublicRPCFlag(t *testing.T) {
	getenv := func(k string) string {
		if k == "SEALD_PUBLIC_RPC" {
			return "polygon=https://polygon-rpc.com, EOS=https://api.evm.eosnetwork.com"
		}
		return ""
	}
	var cfg Config
	if err := Parse(FlagSet("serve", &cfg, true), nil, getenv); err != nil {
		t.Fatal(err)
	}
	if cfg.PublicRPC[seald.NetworkPolygon] != "https://polygon-rpc.com" || cfg.PublicRPC[seald.NetworkEOS] != "https://api.evm.eosnetwork.com" {
		t.Errorf("SEALD_PUBLIC_RPC read as %v", cfg.PublicRPC)
	}
	for _, bad := range []string{"SOLANA=https://x.example", "POLYGON", "POLYGON=javascript:alert(1)", "POLYGON=ftp://x", "POLYGON=https://a b"} {
		var c Config
		err := Parse(FlagSet("serve", &c, true), []string{"--public-rpc", bad}, func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), "public-rpc") {
			t.Errorf("--public-rpc %q: %v", bad, err)
		}
	}
}
