package wiring

import (
	"testing"
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
