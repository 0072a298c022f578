package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"seald.dev/seald/client"
	"seald.dev/seald/internal/wiring"
)

// The commands in this file talk to a running seald over its HTTP API, through package client only, as any
// third party would; the operator commands in cli.go work on the store directly instead.

// apiFlags are the connection settings of the API commands.
type apiFlags struct {
	URL, SubscriptionKey, APIKey, DataDir string
	// urlFrom says where URL came from, for the message of a connection refused.
	urlFrom string
}

// defaultURL is the API's URL when neither --url, SEALD_URL nor <data-dir>/serve.url gives one: serve's
// default --addr.
const defaultURL = "http://127.0.0.1:8080"

// apiFlagSet declares the flags of a command that calls the API with keys; synopsis is its usage line.
func apiFlagSet(name, synopsis string, a *apiFlags, stderr io.Writer) *flag.FlagSet {
	fs := newFlagSet(name, synopsis, stderr)
	a.urlFlags(fs)
	fs.StringVar(&a.SubscriptionKey, "subscription-key", "", "Ocp-Apim-Subscription-Key (default: from <data-dir>/credentials.json)")
	fs.StringVar(&a.APIKey, "api-key", "", "Api-Key (default: from <data-dir>/credentials.json)")
	return fs
}

// urlFlags declares --url and --data-dir, which tell a command where the running serve answers.
func (a *apiFlags) urlFlags(fs *flag.FlagSet) {
	fs.StringVar(&a.URL, "url", "", "base URL of the seald API (default: the URL the serve of --data-dir wrote to <data-dir>/"+
		wiring.ServeURLFile+", else "+defaultURL+")")
	fs.StringVar(&a.DataDir, "data-dir", "./seald-data", "the data dir of the running serve: where it wrote "+wiring.ServeURLFile+
		" and, on its first start, credentials.json")
}

// parse parses the command's arguments (parseArgs) and settles the URL: --url, else SEALD_URL, else the
// URL the serve of --data-dir wrote to serve.url, else defaultURL.
func (a *apiFlags) parse(fs *flag.FlagSet, args []string, getenv func(string) string, names ...string) ([]string, error) {
	pos, err := parseArgs(fs, args, getenv, names...)
	if err != nil {
		return nil, err
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "url" })
	switch {
	case given:
		a.urlFrom = "--url"
	case a.URL != "":
		a.urlFrom = "SEALD_URL"
	default:
		u, err := wiring.ReadServeURL(a.DataDir)
		if err != nil {
			return nil, err
		}
		if u != "" {
			a.URL = u
			a.urlFrom = "from " + filepath.Join(a.DataDir, wiring.ServeURLFile) + ", written by the serve of that data dir (stale if it was killed)"
		} else {
			a.URL = defaultURL
			a.urlFrom = "the default: no " + filepath.Join(a.DataDir, wiring.ServeURLFile) + " of a running serve"
		}
	}
	return pos, nil
}

// explain turns a failure to connect into what the user can do about it: the URL tried, where it came
// from, and how to give another; any other error is returned as it is.
func (a *apiFlags) explain(err error) error {
	var op *net.OpError
	if err == nil || !errors.As(err, &op) || op.Op != "dial" {
		return err
	}
	return fmt.Errorf("no seald answers at %s (%s): %v; start 'seald serve', or give the URL it listens on with --url or SEALD_URL "+
		"(or the --data-dir of the running serve)", a.URL, a.urlFrom, op.Err)
}

// client builds the API client; keys not given by flag or environment come from the credentials file serve
// writes on first start, so that a local operator needs no flags at all.
func (a *apiFlags) client(stderr io.Writer) (*client.Client, error) {
	if a.SubscriptionKey == "" || a.APIKey == "" {
		b, err := os.ReadFile(filepath.Join(a.DataDir, "credentials.json"))
		if err == nil {
			var creds struct {
				Sub string `json:"subscription_key"`
				API string `json:"api_key"`
			}
			if err := json.Unmarshal(b, &creds); err != nil {
				return nil, fmt.Errorf("%s: %v", filepath.Join(a.DataDir, "credentials.json"), err)
			}
			if a.SubscriptionKey == "" {
				a.SubscriptionKey = creds.Sub
			}
			if a.APIKey == "" {
				a.APIKey = creds.API
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	if a.SubscriptionKey == "" || a.APIKey == "" {
		return nil, errors.New("no API keys: give --subscription-key and --api-key (or SEALD_SUBSCRIPTION_KEY and SEALD_API_KEY), or --data-dir of a serve that wrote credentials.json")
	}
	return client.New(a.URL, client.WithKeys(a.SubscriptionKey, a.APIKey), client.WithRetry(10, 30*time.Second),
		client.WithHTTPClient(&http.Client{Timeout: 60 * time.Second})), nil
}

// verifyCommand looks a record up by one key and prints it; not found is an error, so the exit status tells.
func verifyCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (err error) {
	var a apiFlags
	fs := apiFlagSet("verify", "--hash H | --reference R | --cid C | --token-id N [--network N] | --file FILE | --ovi O [--json [--proof]]", &a, stderr)
	defer func() { err = a.explain(err) }()
	hash := fs.String("hash", "", "SHA-256 hash of the data (64 hex digits)")
	ref := fs.String("reference", "", "reference (D-... or I-...)")
	cid := fs.String("cid", "", "IPFS CID of the stored copy")
	token := fs.String("token-id", "", "ERC-721 token id")
	network := fs.String("network", "POLYGON", "network of --token-id: POLYGON or EOS")
	file := fs.String("file", "", "a file holding the JSON data itself (- for stdin)")
	ovi := fs.String("ovi", "", "encrypted reference (encrypted_ovi)")
	asJSON := fs.Bool("json", false, "print the verification result as JSON")
	proof := fs.Bool("proof", false, "include the offline proof bundle (with --json)")
	if _, err := a.parse(fs, args, getenv); err != nil {
		return err
	}
	n := 0
	for _, v := range []string{*hash, *ref, *cid, *token, *file, *ovi} {
		if v != "" {
			n++
		}
	}
	if *proof && !*asJSON {
		return usageError("verify: --proof adds the proof bundle to the JSON output: give --json too")
	}
	if n != 1 {
		fs.Usage()
		return usageError("verify: give exactly one of --hash, --reference, --cid, --token-id, --file or --ovi")
	}
	c, err := a.client(stderr)
	if err != nil {
		return err
	}
	var opts []client.VerifyOption
	if *proof {
		opts = append(opts, client.IncludeProof())
	}
	var v *client.Verification
	switch {
	case *hash != "":
		v, err = c.VerifyHash(ctx, *hash, opts...)
	case *ref != "":
		v, err = c.VerifyReference(ctx, *ref, opts...)
	case *cid != "":
		v, err = c.VerifyCID(ctx, *cid, opts...)
	case *token != "":
		v, err = c.VerifyTokenID(ctx, strings.ToUpper(*network), *token, opts...)
	case *ovi != "":
		v, err = c.VerifyOVI(ctx, *ovi, opts...)
	default:
		var data []byte
		if data, err = readInput(*file); err != nil {
			return err
		}
		if !json.Valid(data) {
			return fmt.Errorf("verify: %s is not JSON", *file)
		}
		v, err = c.VerifyData(ctx, json.RawMessage(data), opts...)
	}
	if client.IsNotFound(err) {
		fmt.Fprintln(stdout, "NOT FOUND:", err.(*client.Error).Message)
		return errors.New("no such record")
	}
	if err != nil {
		return err
	}
	if *asJSON {
		err = printJSON(stdout, v)
	} else {
		printVerification(stdout, v)
	}
	if err != nil {
		return err
	}
	switch v.Status {
	case "REVOKED":
		return &exitError{code: exitRevoked, err: fmt.Errorf("%s is REVOKED", v.Details.Reference)}
	case "SUSPENDED":
		return &exitError{code: exitSuspended, err: fmt.Errorf("%s is SUSPENDED", v.Details.Reference)}
	}
	return nil
}

func readInput(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(name)
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// developmentChain starts chain_name for a development chain (seald.DevelopmentChain; these commands use
// package client only, and TestDevelopmentChainWord keeps the two equal).
const developmentChain = "seald development chain"

// printVerification writes the result for a person: what was sealed, by whom, when, where it is anchored.
func printVerification(w io.Writer, v *client.Verification) {
	d := v.Details
	verdict := "VERIFIED"
	switch {
	case v.Status != "ACTIVE":
		verdict = "FOUND, BUT " + v.Status
	case strings.HasPrefix(v.Blockchain.ChainName, developmentChain):
		// As the page says it: found and checked by the issuer, but anchored where nobody else can check.
		verdict = "FOUND ON A DEVELOPMENT CHAIN, NOT PROVEN"
	}
	fmt.Fprintf(w, "%s  %s\n", verdict, d.Reference)
	row := func(k, val string) {
		if val != "" {
			fmt.Fprintf(w, "  %-10s %s\n", k, val)
		}
	}
	row("hash", d.Hash)
	row("owner", v.Owner.Business.Name+" / "+v.Owner.Project.Name+" ("+v.Privacy+")")
	row("sealed", d.CreatedTime)
	row("pipeline", d.Pipeline)
	chain := v.Blockchain.BlockchainNetwork
	if v.Blockchain.TokenID != "" {
		chain += " token " + v.Blockchain.TokenID
	} else {
		chain += " (not anchored yet)"
	}
	if v.Blockchain.RevokedOnChain {
		chain += ", revoked on chain"
	}
	if v.Blockchain.ChainName != "" {
		chain += " on " + v.Blockchain.ChainName
	}
	row("chain", chain)
	if v.ErasedTime != "" {
		// The data is gone, the anchor is not: say both, so nobody goes looking for the copy.
		row("erased", erasedNote(v.ErasedTime))
		if v.IPFS.CID != "" {
			row("ipfs", v.IPFS.CID+" (erased: no longer served)")
		}
	} else {
		row("ipfs", v.IPFS.CID)
	}
	var flags []string
	for _, f := range []struct {
		on   bool
		name string
	}{{v.Misc.IsEmail, "e-mailed"}, {v.Misc.IsEncrypted, "encrypted"}, {v.Misc.IsSigned, "signed"},
		{v.Misc.HasPassword, "password"}, {v.IsDataDownloadable, "downloadable"}} {
		if f.on {
			flags = append(flags, f.name)
		}
	}
	row("flags", strings.Join(flags, ", "))
}

// statusCommand prints a record's status; with --watch it follows the record until COMPLETED or FAILED,
// printing a line at each change.
func statusCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (err error) {
	var a apiFlags
	fs := apiFlagSet("status", "REFERENCE [--watch [--interval 1s]] [--json]", &a, stderr)
	defer func() { err = a.explain(err) }()
	watch := fs.Bool("watch", false, "follow the record until COMPLETED or FAILED")
	interval := fs.Duration("interval", time.Second, "time between reads with --watch")
	asJSON := fs.Bool("json", false, "print the status record as JSON")
	pos, err := a.parse(fs, args, getenv, "REFERENCE")
	if err != nil {
		return err
	}
	c, err := a.client(stderr)
	if err != nil {
		return err
	}
	last := ""
	for {
		s, err := c.Status(ctx, pos[0])
		if err != nil {
			return err
		}
		if !*watch {
			if *asJSON {
				return printJSON(stdout, s)
			}
			printStatus(stdout, s)
			return nil
		}
		line := statusLine(s)
		if line != last {
			fmt.Fprintf(stdout, "%s  %s\n", time.Now().UTC().Format("15:04:05"), line)
			last = line
		}
		switch s.State {
		case client.StateCompleted:
			return nil
		case client.StateFailed:
			return fmt.Errorf("record %s failed", s.Reference)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(*interval):
		}
	}
}

func statusLine(s *client.StatusRecord) string {
	line := fmt.Sprintf("%-16s status %s", s.State, s.Status)
	if s.TokenID != "" {
		line += "  token " + s.TokenID
	}
	if s.ErrorMessage != nil {
		line += fmt.Sprintf("  error %s: %s", s.ErrorType, *s.ErrorMessage)
	}
	if s.ErasedTime != "" {
		line += "  data erased " + s.ErasedTime
	}
	return line
}

func printStatus(w io.Writer, s *client.StatusRecord) {
	fmt.Fprintf(w, "%s\n", s.Reference)
	errText := "-"
	if s.ErrorMessage != nil {
		errText = s.ErrorType + ": " + *s.ErrorMessage
	}
	for _, r := range [][2]string{{"state", s.State}, {"status", s.Status}, {"error", errText}, {"hash", s.Hash},
		{"network", s.BlockchainNetwork}, {"token", s.TokenID}, {"cid", s.CID}, {"created", s.CreatedTime},
		{"updated", s.UpdatedTime}, {"erased", erasedNote(s.ErasedTime)}} {
		if r[1] != "" {
			fmt.Fprintf(w, "  %-8s %s\n", r[0], r[1])
		}
	}
}

// erasedNote words an erased_time for a person; "" (not erased) stays "", so the row is left out.
func erasedNote(t string) string {
	if t == "" {
		return ""
	}
	return t + " (the data and its stored copy were deleted; the hash and its proof still verify)"
}
