// Command seald seals JSON data (canonical hash, encrypted copy on IPFS, ERC-721 anchor on an EVM chain,
// e-mail) and verifies it later. `seald serve` runs the API and the pipeline; the other commands operate on
// the same data dir or database, also while serve runs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"seald.dev/seald"
	"seald.dev/seald/internal/wiring"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], wiring.Environ(os.LookupEnv), os.Stdout, os.Stderr)
	stop()
	if err != nil {
		var quiet *exitError
		if !errors.Is(err, flag.ErrHelp) && !(errors.As(err, &quiet) && quiet.code >= exitRevoked) {
			fmt.Fprintln(os.Stderr, "seald:", userMessage(err))
		}
		os.Exit(exitCode(err))
	}
}

const usage = `usage: seald <command> [flags]

commands:
  serve                                   run the API and the pipeline
  tenant create --business N --project N [--privacy PUBLIC|PRIVATE] [--network POLYGON|EOS]
                [--rate-limit N --rate-burst N] [--retain 365d] [--json]
  tenant update --business ID [--name N] [--description D] [--logo URL] [--website URL]
                [--project ID [--project-name N] [--project-description D] [--project-logo URL]
                [--retain 365d|forever] [--attach-credential[=false]]]
                                          --retain: how long stored copies are kept, then erased;
                                          --attach-credential: e-mails carry each record's credential
  key issue --business ID | --project ID  issue a subscription key (business) or API key (project)
  key list [--business ID]                list keys by id and prefix
  key rotate --id KEY_ID [--overlap 24h]  issue a successor; the old key works until the overlap ends
  key revoke --id KEY_ID                  revoke a key at once
  project rate --project ID --rate-limit N --rate-burst N
                                          a project's own requests per second per API key (0: serve's)
  record suspend|activate|revoke REFERENCE [--reason TEXT]
  record history REFERENCE [--json]       the record's audit trail: each status change, when, by which key, why
  record erase REFERENCE --reason TEXT    destroy the record's data key and stored copy; its proof stays valid
  proof verify FILE --rpc URL --trust FILE|URL [--trust-repin] [--data FILE] | --no-trust
                                          check a proof bundle (or a presentation of seald disclose)
                                          against the chain and the issuer's trust root, without
                                          seald; exit 0 valid, 1 NOT valid,
                                          2 could not check, 3 valid but revoked on chain; a
                                          trust root URL is pinned (--trust-pin-dir)
  disclose PACKAGE --members name,degree [-o FILE]
                                          offline: a presentation of chosen members from a disclosure
                                          package (GET /verification/api/v1/disclosure), hiding the rest
  trust export [--url URL] [--out FILE]   write the issuer's trust root (from a running serve)
  trust retire-contract --chain-id N --contract A --anchorer A --to-block N [--network N] [--from-block N]
                                          list a contract no longer anchored on, for its block range only
  keys rotate [--master] [--signing]      make a new master and/or signing key current; old ones are
                                          kept to open and verify what they sealed and signed
  keys compromised KEY_ID                 mark a signing key compromised: no bundle it signed verifies
  version                                 the module version and commit this binary was built from (also --version)

API commands (talk to a running serve over HTTP):
  verify --hash H | --reference R | --cid C | --token-id N [--network POLYGON|EOS] | --file data.json | --ovi O [--json]
                                          look a record up; exit 0 ACTIVE, 1 not found,
                                          3 REVOKED, 4 SUSPENDED
  seal --file records.jsonl [--concurrency 8] [--network POLYGON|EOS] [--out refs.jsonl]
                                          submit one authentication request body per line; prints
                                          {"line","reference","hash"} of each accepted one
  status [--watch] REFERENCE              print a record's state; --watch follows it to COMPLETED or FAILED
  webhook add URL [--events T,...]        register an endpoint for record events (record.completed,
                                          record.failed, record.status_changed, record.erased); prints its secret once
  webhook list                            the project's webhooks
  webhook rm ID                           delete a webhook
  webhook deliveries ID                   its latest deliveries: state, attempts, last attempt, next try
  webhook replay DELIVERY_ID              send a delivery's event again, with the same event id
  identity set DOMAIN [--rotate-key]      claim a domain for the business (did:web); prints the DID document
                                          to publish at https://DOMAIN/.well-known/did.json
  identity check                          fetch the published DID document now: verified, or why not
  identity show                           the business's domain identity and its DID document

The operator commands take --data-dir and --database (also SEALD_DATA_DIR, SEALD_DATABASE) and open only a
store that serve created. The API commands take --url, --subscription-key and --api-key (also SEALD_URL,
SEALD_SUBSCRIPTION_KEY, SEALD_API_KEY); without them they read <data-dir>/serve.url, written by the running
serve, and <data-dir>/credentials.json. A command given wrongly exits 2.
Run 'seald <command> -h' for a command's arguments and flags. The speed report is a separate command, sealbench.
`

// run is the whole program, callable from tests: args without the program name, the environment through
// getenv, output to stdout and stderr.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	privateFiles()
	err := dispatch(ctx, args, getenv, stdout, stderr)
	var h *helpText
	if errors.As(err, &h) {
		_, err = io.WriteString(stdout, h.text)
		return err
	}
	return err
}

// dispatch runs the command args names.
func dispatch(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageError("a command is required")
	}
	cmd, rest := args[0], args[1:]
	sub := ""
	if len(rest) > 0 {
		sub = rest[0]
	}
	if groups[cmd] && (isHelp(sub) || sub == "") {
		// A command group's help: its lines of the usage.
		if sub == "" {
			fmt.Fprint(stderr, groupUsage(cmd))
			return usageError("%s: a subcommand is required", cmd)
		}
		fmt.Fprint(stdout, groupUsage(cmd))
		return nil
	}
	switch cmd {
	case "serve":
		return serve(ctx, rest, getenv, stdout, stderr)
	case "tenant":
		switch sub {
		case "create":
			return tenantCreate(ctx, rest[1:], getenv, stdout, stderr)
		case "update":
			return tenantUpdate(ctx, rest[1:], getenv, stdout, stderr)
		}
	case "key":
		switch sub {
		case "issue", "list", "rotate", "revoke":
			return keyCommand(ctx, sub, rest[1:], getenv, stdout, stderr)
		}
	case "record":
		switch sub {
		case "suspend", "activate", "revoke", "history", "erase":
			return recordCommand(ctx, sub, rest[1:], getenv, stdout, stderr)
		}
	case "project":
		if sub == "rate" {
			return projectRate(ctx, rest[1:], getenv, stdout, stderr)
		}
	case "proof":
		if sub == "verify" {
			return proofVerify(ctx, rest[1:], getenv, stdout, stderr)
		}
	case "keys":
		switch sub {
		case "rotate":
			return keysRotate(ctx, rest[1:], getenv, stdout, stderr)
		case "compromised":
			return keysCompromised(ctx, rest[1:], getenv, stdout, stderr)
		}
	case "trust":
		switch sub {
		case "export":
			return trustExport(ctx, rest[1:], getenv, stdout, stderr)
		case "retire-contract":
			return trustRetireContract(ctx, rest[1:], getenv, stdout, stderr)
		}
	case "verify":
		return verifyCommand(ctx, rest, getenv, stdout, stderr)
	case "disclose":
		return discloseCommand(rest, getenv, stdout, stderr)
	case "seal":
		return sealCommand(ctx, rest, getenv, stdout, stderr)
	case "status":
		return statusCommand(ctx, rest, getenv, stdout, stderr)
	case "webhook":
		switch sub {
		case "add", "list", "rm", "deliveries", "replay":
			return webhookCommand(ctx, sub, rest[1:], getenv, stdout, stderr)
		}
	case "identity":
		switch sub {
		case "set", "check", "show":
			return identityCommand(ctx, sub, rest[1:], getenv, stdout, stderr)
		}
	case "version", "--version", "-version":
		if _, err := parseArgs(newFlagSet("version", "", stderr), rest, getenv); err != nil {
			return err
		}
		return version(stdout)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	// Only the error and the way on, not the whole usage above it: the likely intended command and where the
	// list is.
	if groups[cmd] {
		msg := fmt.Sprintf("unknown command %q", joinArgs(cmd, sub))
		if s := suggest(sub, subcommands[cmd]); s != "" {
			return usageError("%s; did you mean %q? run 'seald %s -h' for its subcommands", msg, cmd+" "+s, cmd)
		}
		return usageError("%s; run 'seald %s -h' for its subcommands", msg, cmd)
	}
	msg := fmt.Sprintf("unknown command %q", cmd)
	if s := suggest(cmd, commands); s != "" {
		return usageError("%s; did you mean %q? run 'seald -h' for the list of commands", msg, s)
	}
	return usageError("%s; run 'seald -h' for the list of commands", msg)
}

// isHelp reports whether a command group's argument asks for its help.
func isHelp(s string) bool { return s == "-h" || s == "-help" || s == "--help" || s == "help" }

// commands and subcommands name what dispatch runs, for the suggestion after an unknown command.
var (
	commands    = []string{"serve", "tenant", "key", "record", "project", "proof", "keys", "trust", "verify", "disclose", "seal", "status", "webhook", "version", "help"}
	subcommands = map[string][]string{"tenant": {"create", "update"}, "key": {"issue", "list", "rotate", "revoke"},
		"record": {"suspend", "activate", "revoke", "history", "erase"}, "project": {"rate"}, "proof": {"verify"},
		"keys": {"rotate", "compromised"}, "trust": {"export", "retire-contract"}, "webhook": {"add", "list", "rm", "deliveries", "replay"}}
)

func joinArgs(a, b string) string {
	if b == "" {
		return a
	}
	return a + " " + b
}

// groups are the commands that take a subcommand.
var groups = map[string]bool{"tenant": true, "key": true, "keys": true, "record": true, "project": true, "proof": true, "trust": true, "webhook": true, "identity": true}

// groupUsage is the part of the usage about one command group, with the lines that continue it.
func groupUsage(cmd string) string {
	var b strings.Builder
	b.WriteString("usage: seald " + cmd + " <subcommand> [flags]\n\n")
	in := false
	for _, line := range strings.Split(usage, "\n") {
		switch {
		case strings.HasPrefix(line, "  "+cmd+" "):
			in = true
		case in && strings.HasPrefix(line, "        "):
		default:
			in = false
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	b.WriteString("\nRun 'seald " + cmd + " <subcommand> -h' for its flags.\n")
	return b.String()
}

// userMessage is err in the user's terms: a seald error that is the whole of err says its message (which
// names the key, record or project) without the package and function that produced it; anything else,
// such as a file that cannot be read, is printed as it is, without the "seald: " the client package starts
// its errors with (main prints that prefix once).
func userMessage(err error) string {
	if e, ok := err.(*seald.Error); ok && e.Code != seald.EINTERNAL && e.Message != "" {
		return e.Message
	}
	msg := strings.ReplaceAll(err.Error(), ": seald: ", ": ")
	for strings.HasPrefix(msg, "seald: ") {
		msg = strings.TrimPrefix(msg, "seald: ")
	}
	return msg
}
