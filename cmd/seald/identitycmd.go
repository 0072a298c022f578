package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"seald.dev/seald/client"
)

// identityCommand runs `seald identity set|check|show` through the API, for the business of the keys. It is
// a command of its own rather than under `seald tenant`, whose commands are the operator's and work on the
// store: the identity is the business's to manage, with its own keys, like its webhooks.
func identityCommand(ctx context.Context, sub string, args []string, getenv func(string) string, stdout, stderr io.Writer) (err error) {
	var a apiFlags
	synopsis, names := map[string]string{"set": "DOMAIN [--rotate-key] [--json]", "check": "[--json]", "show": "[--json]"}[sub],
		map[string][]string{"set": {"DOMAIN"}}[sub]
	fs := apiFlagSet("identity "+sub, synopsis, &a, stderr)
	defer func() { err = a.explain(err) }()
	asJSON := fs.Bool("json", false, "print the answer as JSON")
	var rotate *bool
	if sub == "set" {
		rotate = fs.Bool("rotate-key", false, "make a new current key; the older ones stay in the DID document, so what they signed keeps verifying")
	}
	pos, err := a.parse(fs, args, getenv, names...)
	if err != nil {
		return err
	}
	c, err := a.client(stderr)
	if err != nil {
		return err
	}
	var id *client.Identity
	switch sub {
	case "set":
		id, err = c.SetIdentity(ctx, pos[0], *rotate)
	case "check":
		id, err = c.CheckIdentity(ctx)
	case "show":
		id, err = c.Identity(ctx)
	default:
		return errors.New("unknown identity command " + sub)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, id)
	}
	fmt.Fprintf(stdout, "domain: %s\ndid:    %s\nstate:  %s\n", id.Domain, id.DID, id.State)
	if id.VerifiedAt != "" {
		fmt.Fprintf(stdout, "verified at: %s\n", id.VerifiedAt)
	}
	if id.CheckedAt != "" {
		fmt.Fprintf(stdout, "checked at:  %s\n", id.CheckedAt)
	}
	if id.Reason != "" {
		fmt.Fprintf(stdout, "why not:     %s\n", id.Reason)
	}
	fmt.Fprintf(stdout, "\npublish this DID document at %s:\n%s\n", id.DocumentURL, id.Document)
	if sub == "check" && id.State != "verified" {
		return fmt.Errorf("the domain %s is %s", id.Domain, id.State)
	}
	return nil
}
