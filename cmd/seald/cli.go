package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/internal/wiring"
)

// openOperator opens what the operator commands need, through the builder serve uses in its Operator mode:
// the secrets and the store of the data dir and the Service over them; nothing listens, no pipeline runs.
func openOperator(ctx context.Context, cfg *wiring.Config, getenv func(string) string) (*seald.Service, func(), error) {
	app, err := wiring.Build(ctx, *cfg, wiring.Options{Mode: wiring.Operator, Getenv: getenv})
	if err != nil {
		return nil, nil, err
	}
	return app.Service, func() { app.Close() }, nil
}

func tenantCreate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg wiring.Config
	fs := wiring.FlagSet("tenant create", &cfg, false)
	fs.SetOutput(stderr)
	var req seald.TenantRequest
	var privacy string
	var asJSON bool
	fs.StringVar(&req.Business, "business", "", "business name (an existing business of this name is joined)")
	fs.StringVar(&req.Project, "project", "", "project name")
	fs.StringVar(&privacy, "privacy", "PUBLIC", "PUBLIC or PRIVATE")
	fs.StringVar(&req.Network, "network", "POLYGON", "POLYGON or EOS")
	fs.StringVar(&req.Description, "description", "", "description")
	fs.StringVar(&req.Website, "website", "", "website URL")
	fs.StringVar(&req.Logo, "logo", "", "logo URL")
	fs.BoolVar(&asJSON, "json", false, "print one JSON object")
	fs.Float64Var(&req.RateLimit, "rate-limit", 0, "requests per second each API key of the project may make (0: serve's --rate-limit)")
	fs.IntVar(&req.RateBurst, "rate-burst", 0, "burst of requests each API key of the project may make (0: serve's --rate-burst)")
	fs.StringVar(&req.Retain, "retain", "", "how long stored copies are kept after sealing, then erased (365d, 8760h; default: for ever)")
	if err := wiring.Parse(fs, args, getenv); err != nil {
		return err
	}
	req.Privacy = seald.Privacy(strings.ToUpper(privacy))
	svc, closeFn, err := openOperator(ctx, &cfg, getenv)
	if err != nil {
		return err
	}
	defer closeFn()
	t, err := svc.CreateTenant(ctx, req)
	if err != nil {
		return err
	}
	out := map[string]string{
		"business_id": t.Business.BusinessID, "project_id": t.Project.ProjectID,
		"subscription_key": t.SubscriptionKey, "api_key": t.APIKey,
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(out)
	}
	fmt.Fprintf(stdout, "business_id       %s\nproject_id        %s\nsubscription_key  %s\napi_key           %s\n",
		out["business_id"], out["project_id"], out["subscription_key"], out["api_key"])
	fmt.Fprintln(stderr, "Keep the keys now: seald stores only their digests (the subscription key sealed with the master key).")
	return nil
}

// projectRate changes a project's own request rate per API key; a running serve applies it within its auth
// cache's lifetime (--auth-cache-ttl).
func projectRate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg wiring.Config
	fs := wiring.FlagSet("project rate", &cfg, false)
	fs.SetOutput(stderr)
	project := fs.String("project", "", "project id (prj_...)")
	perSecond := fs.Float64("rate-limit", 0, "requests per second each API key of the project may make (0: serve's --rate-limit)")
	burst := fs.Int("rate-burst", 0, "burst of requests each API key of the project may make (0: serve's --rate-burst)")
	if err := wiring.Parse(fs, args, getenv); err != nil {
		return err
	}
	if *project == "" {
		return fmt.Errorf("--project is required")
	}
	svc, closeFn, err := openOperator(ctx, &cfg, getenv)
	if err != nil {
		return err
	}
	defer closeFn()
	if err := svc.SetProjectRate(ctx, *project, *perSecond, *burst); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "project %s: %g requests/s, burst %d per API key (0: the server's)\n", *project, *perSecond, *burst)
	return nil
}

func keyCommand(ctx context.Context, sub string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg wiring.Config
	fs := wiring.FlagSet("key "+sub, &cfg, false)
	fs.SetOutput(stderr)
	var business, project, id string
	var overlap time.Duration
	var asJSON bool
	switch sub {
	case "issue":
		fs.StringVar(&business, "business", "", "business id: issue a subscription key")
		fs.StringVar(&project, "project", "", "project id: issue an API key")
	case "list":
		fs.StringVar(&business, "business", "", "only this business")
	case "rotate":
		fs.StringVar(&id, "id", "", "key id")
		fs.DurationVar(&overlap, "overlap", 24*time.Hour, "how long the old key keeps working")
	case "revoke":
		fs.StringVar(&id, "id", "", "key id")
	}
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	if err := wiring.Parse(fs, args, getenv); err != nil {
		return err
	}
	svc, closeFn, err := openOperator(ctx, &cfg, getenv)
	if err != nil {
		return err
	}
	defer closeFn()
	switch sub {
	case "issue":
		if (business == "") == (project == "") {
			return fmt.Errorf("key issue needs exactly one of --business or --project")
		}
		secret, k, err := svc.IssueKey(ctx, business, project)
		if err != nil {
			return err
		}
		return printKey(stdout, asJSON, k, secret)
	case "rotate", "revoke":
		if id == "" {
			return fmt.Errorf("key %s needs --id", sub)
		}
		if sub == "revoke" {
			k, err := svc.RevokeKey(ctx, id)
			if err != nil {
				return err
			}
			return printKey(stdout, asJSON, k, "")
		}
		secret, k, err := svc.RotateKey(ctx, id, overlap)
		if err != nil {
			return err
		}
		return printKey(stdout, asJSON, k, secret)
	}
	keys, err := svc.Store.Keys(ctx, business)
	if err != nil {
		return err
	}
	if asJSON {
		list := make([]map[string]any, len(keys))
		for i, k := range keys {
			list[i] = keyJSON(k, "")
		}
		return json.NewEncoder(stdout).Encode(list)
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tPREFIX\tBUSINESS\tPROJECT\tCREATED\tSTATE")
	now := time.Now()
	for _, k := range keys {
		state := "active"
		switch {
		case k.RevokedAt != nil:
			state = "revoked"
		case k.ExpiresAt != nil && !k.Active(now):
			state = "expired"
		case k.ExpiresAt != nil:
			state = "expires " + k.ExpiresAt.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s…\t%s\t%s\t%s\t%s\n", k.ID, k.Kind, k.Prefix, k.BusinessID, k.ProjectID,
			k.CreatedAt.Format(time.RFC3339), state)
	}
	return tw.Flush()
}

func keyJSON(k *seald.Key, secret string) map[string]any {
	m := map[string]any{"id": k.ID, "kind": k.Kind, "prefix": k.Prefix, "business_id": k.BusinessID,
		"project_id": k.ProjectID, "created_at": k.CreatedAt, "expires_at": k.ExpiresAt, "revoked_at": k.RevokedAt}
	if secret != "" {
		m["secret"] = secret
	}
	return m
}

func printKey(w io.Writer, asJSON bool, k *seald.Key, secret string) error {
	if asJSON {
		return json.NewEncoder(w).Encode(keyJSON(k, secret))
	}
	fmt.Fprintf(w, "id      %s\nkind    %s\nprefix  %s\n", k.ID, k.Kind, k.Prefix)
	if secret != "" {
		fmt.Fprintf(w, "secret  %s\n", secret)
	}
	if k.RevokedAt != nil {
		fmt.Fprintf(w, "revoked %s\n", k.RevokedAt.Format(time.RFC3339))
	}
	return nil
}

func recordCommand(ctx context.Context, sub string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg wiring.Config
	fs := wiring.FlagSet("record "+sub, &cfg, false)
	fs.SetOutput(stderr)
	var reason *string
	var asJSON *bool
	if sub == "history" {
		asJSON = fs.Bool("json", false, "print the changes as JSON")
	} else {
		reason = fs.String("reason", "", "why, for the audit trail")
	}
	var ref string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		ref, args = args[0], args[1:] // the reference may come before the flags
	}
	if err := wiring.Parse(fs, args, getenv); err != nil {
		return err
	}
	if ref == "" {
		ref = fs.Arg(0)
	}
	if ref == "" {
		return fmt.Errorf("record %s needs a REFERENCE", sub)
	}
	status := map[string]string{"suspend": "SUSPENDED", "activate": "ACTIVE", "revoke": "REVOKED"}[sub]
	svc, closeFn, err := openOperator(ctx, &cfg, getenv)
	if err != nil {
		return err
	}
	defer closeFn()
	if sub == "erase" {
		r, erased, err := svc.Erase(ctx, seald.Operator(), ref, *reason)
		if err != nil {
			return fmt.Errorf("record %s: %s", ref, seald.ErrorMessage(err))
		}
		what := "erased"
		if !erased {
			what = "already erased"
		}
		fmt.Fprintf(stdout, "%s %s at %s (status %s kept); its stored copy is deleted by the pipeline\n", r.Reference, what,
			r.ErasedAt.UTC().Format(time.RFC3339), r.Status)
		return nil
	}
	if sub == "history" {
		r, trail, err := svc.History(ctx, seald.Operator(), ref)
		if err != nil {
			return fmt.Errorf("record %s: %s", ref, seald.ErrorMessage(err))
		}
		if *asJSON {
			return printJSON(stdout, trail)
		}
		fmt.Fprintf(stdout, "%s is %s; %d status changes\n", r.Reference, r.Status, len(trail))
		w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "TIME\tACTION\tFROM\tTO\tBY\tREASON")
		for _, c := range trail {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", c.At.UTC().Format(time.RFC3339), c.Action, c.From, c.To, c.Actor, c.Reason)
		}
		return w.Flush()
	}
	r, err := svc.SetStatus(ctx, seald.Operator(), ref, status, *reason)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s %s\n", r.Reference, r.Status)
	return nil
}

// keysRotate makes a new master key and/or signing key current in the secrets file, keeping the old ones:
// what they sealed still opens and what they signed still verifies (the trust root lists a retired signing
// key). Every instance using the file must be restarted to take the new keys.
func keysRotate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg wiring.Config
	fs := wiring.FlagSet("keys rotate", &cfg, false)
	fs.SetOutput(stderr)
	master := fs.Bool("master", false, "make a new master key current (it wraps the data keys of new records)")
	signing := fs.Bool("signing", false, "make a new signing key current (it signs proof bundles; the old one is listed as retired)")
	if err := wiring.Parse(fs, args, getenv); err != nil {
		return err
	}
	if !*master && !*signing {
		return errors.New("keys rotate: give --master, --signing or both")
	}
	path := cfg.SecretsPath()
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("keys rotate: no secrets file at %s (--data-dir or --secrets-file)", path)
	}
	pass := wiring.Value(getenv(wiring.PassphraseEnv))
	k, _, err := wiring.LoadSecrets(path, pass)
	if err != nil {
		return err
	}
	if err := k.Rotate(*master, *signing); err != nil {
		return err
	}
	if err := wiring.SaveSecrets(path, pass, k); err != nil {
		return err
	}
	if *master {
		fmt.Fprintf(stdout, "master key %s is current; %d older ones still open what they sealed\n", k.MasterKeyID(), k.MasterKeys()-1)
	}
	if *signing {
		keys := k.SigningKeys()
		fmt.Fprintf(stdout, "signing key %s is current; %d retired ones stay in the trust root\n", keys[0].ID, len(keys)-1)
	}
	fmt.Fprintf(stdout, "written to %s: restart every instance that uses it\n", path)
	return nil
}

// tenantUpdate changes a business's details and, with --project, one of its projects'; only the flags given
// change anything. A running serve shows the change within its auth cache's lifetime (--auth-cache-ttl).
func tenantUpdate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg wiring.Config
	fs := wiring.FlagSet("tenant update", &cfg, false)
	fs.SetOutput(stderr)
	var u seald.TenantUpdate
	fs.StringVar(&u.BusinessID, "business", "", "id of the business (biz_…)")
	fs.StringVar(&u.ProjectID, "project", "", "id of one of its projects (prj_…), for the --project-* flags")
	values := map[string]*string{}
	for name, usage := range map[string]string{
		"name": "the business's new name", "description": "its description", "logo": "its logo URL", "website": "its website",
		"project-name": "the project's new name", "project-description": "its description", "project-logo": "its logo URL",
		"retain": "how long the project keeps stored copies after sealing, then erases them (365d, 8760h, or forever)",
	} {
		values[name] = fs.String(name, "", usage)
	}
	if err := wiring.Parse(fs, args, getenv); err != nil {
		return err
	}
	if u.BusinessID == "" {
		return errors.New("tenant update: --business is required")
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	pick := func(name string) *string {
		if given[name] {
			return values[name]
		}
		return nil
	}
	u.Name, u.Description, u.Logo, u.Website = pick("name"), pick("description"), pick("logo"), pick("website")
	u.ProjectName, u.ProjectDescription, u.ProjectLogo = pick("project-name"), pick("project-description"), pick("project-logo")
	u.Retain = pick("retain")
	if len(given) == 1 || len(given) == 2 && given["project"] {
		return errors.New("tenant update: nothing to change: give --name, --description, --logo, --website or --project-* flags")
	}
	svc, closeFn, err := openOperator(ctx, &cfg, getenv)
	if err != nil {
		return err
	}
	defer closeFn()
	b, p, err := svc.UpdateTenant(ctx, seald.Operator(), u)
	if err != nil {
		return fmt.Errorf("tenant update: %s", seald.ErrorMessage(err))
	}
	fmt.Fprintf(stdout, "business %s: %q, %q, logo %q, website %q\n", b.BusinessID, b.Name, b.Description, b.Logo, b.Website)
	if p != nil {
		fmt.Fprintf(stdout, "project %s: %q, %q, logo %q, retain %s\n", p.ProjectID, p.Name, p.Description, p.Logo,
			seald.FormatRetention(p.Retain))
	}
	return nil
}
