package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"seald.dev/seald"
	"seald.dev/seald/internal/wiring"
	"seald.dev/seald/secret"
)

// keysCompromised marks a signing key compromised in the secrets file: the trust root then lists it so, and
// verifiers refuse every bundle it signed, old ones included; holders fetch fresh bundles, which the service
// signs on request with its current key. A current key is replaced by a new one first.
func keysCompromised(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg wiring.Config
	fs := newFlagSet("keys compromised", "KEY_ID (the key_id of the trust root or of a bundle)", stderr)
	wiring.SecretsFlags(fs, &cfg)
	pos, err := parseArgs(fs, args, getenv, "KEY_ID")
	if err != nil {
		return err
	}
	id := pos[0]
	return editSecrets(&cfg, getenv, "keys compromised", stdout, func(k *secret.Keys) error {
		rotated, err := k.Compromise(id)
		if err != nil {
			return err
		}
		if rotated {
			fmt.Fprintf(stdout, "signing key %s was current: key %s is current now\n", id, k.SigningKeys()[0].ID)
		}
		fmt.Fprintf(stdout, "signing key %s is marked compromised: the trust root lists it so and verifiers refuse every bundle it signed; "+
			"holders fetch fresh bundles, signed by key %s\n", id, k.SigningKeys()[0].ID)
		return nil
	})
}

// trustRetireContract records in the secrets file a contract the issuer no longer anchors on, with the
// blocks in which it did: the trust root keeps listing it, so that its bundles keep verifying after a
// redeploy, and refuses its anchors outside that range.
func trustRetireContract(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg wiring.Config
	fs := newFlagSet("trust retire-contract", "--chain-id N --contract ADDRESS --anchorer ADDRESS --to-block N [--network N] [--from-block N]", stderr)
	wiring.SecretsFlags(fs, &cfg)
	var c seald.ContractRange
	var to uint64
	fs.StringVar(&c.Network, "network", seald.NetworkPolygon, "POLYGON or EOS")
	fs.StringVar(&c.ChainID, "chain-id", "", "decimal chain id of the contract's chain (137 for Polygon PoS)")
	fs.StringVar(&c.Contract, "contract", "", "address of the SealRegistry no longer anchored on")
	fs.StringVar(&c.Anchorer, "anchorer", "", "address that sent its anchoring transactions (the chain key's)")
	fs.Uint64Var(&c.FromBlock, "from-block", 0, "first block it anchored in (its deployment block, or 0)")
	fs.Uint64Var(&to, "to-block", 0, "last block it anchored in for you; when its key leaked, the last block before the leak")
	if _, err := parseArgs(fs, args, getenv); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if c.ChainID == "" || c.Contract == "" || c.Anchorer == "" || !set["to-block"] {
		fs.Usage()
		return usageError("trust retire-contract needs --chain-id, --contract, --anchorer and --to-block")
	}
	for _, a := range []*string{&c.Contract, &c.Anchorer} {
		if !common.IsHexAddress(*a) {
			return usageError("trust retire-contract: %q is not an address", *a)
		}
		*a = common.HexToAddress(*a).Hex()
	}
	c.Network, c.ToBlock = strings.ToUpper(c.Network), &to
	return editSecrets(&cfg, getenv, "trust retire-contract", stdout, func(k *secret.Keys) error {
		if err := k.RetireContract(c); err != nil {
			return errors.New(seald.ErrorMessage(err))
		}
		fmt.Fprintf(stdout, "contract %s of %s (chain %s), anchored by %s, is listed in the trust root for blocks %d to %d only\n",
			c.Contract, c.Network, c.ChainID, c.Anchorer, c.FromBlock, to)
		return nil
	})
}

// editSecrets loads the secrets file, changes it with edit and writes it back, under the passphrase if any.
func editSecrets(cfg *wiring.Config, getenv func(string) string, cmd string, stdout io.Writer, edit func(k *secret.Keys) error) error {
	path := cfg.SecretsPath()
	if _, err := os.Stat(path); err != nil {
		return noSecretsFile(cmd, cfg)
	}
	pass := wiring.Value(getenv(wiring.PassphraseEnv))
	k, _, err := wiring.LoadSecrets(path, pass)
	if err != nil {
		return err
	}
	if err := edit(k); err != nil {
		return fmt.Errorf("%s: %v", cmd, err)
	}
	if err := wiring.SaveSecrets(path, pass, k); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "written to %s: restart every instance that uses it, and give verifiers the new trust root\n", path)
	return nil
}
