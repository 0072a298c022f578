package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/internal/wiring"
	"seald.dev/seald/service"
)

// openOperator opens what the operator commands need, through the builder serve uses in its Operator mode:
// the secrets and the store of the data dir and the Service over them; nothing listens, no pipeline runs.
func openOperator(ctx context.Context, cfg *wiring.Config, getenv func(string) string) (*service.Service, func(), error) {
	app, err := wiring.Build(ctx, *cfg, wiring.Options{Mode: wiring.Operator, Getenv: getenv})
	if err != nil {
		return nil, nil, err
	}
	return app.Service, func() { app.Close() }, nil
}

func tenantCreate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg wiring.Config
	fs := newFlagSet("tenant create", "--business NAME --project NAME [--privacy PUBLIC|PRIVATE] [flags]", stderr)
	wiring.StoreFlags(fs, &cfg)
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
	if _, err := parseArgs(fs, args, getenv); err != nil {
		return err
	}
	if strings.TrimSpace(req.Business) == "" || strings.TrimSpace(req.Project) == "" {
		fs.Usage()
		return usageError("tenant create needs --business and --project")
	}
	req.Privacy = seald.Privacy(strings.ToUpper(privacy))
	svc, closeFn, err := openOperator(ctx, &cfg, getenv)
	if err != nil {
		return err
	}
	defer closeFn()
	t, err := svc.CreateTenant(ctx, seald.Operator(), req)
	if err != nil {
		return err
	}
	out := map[string]string{
		"business_id": t.Business.BusinessID, "project_id": t.Project.ProjectID,
		"subscription_key": t.SubscriptionKey, "api_key": t.APIKey,
	}
	// The keys' ids, which `key rotate` and `key revoke` take.
	keys, err := svc.Store.Keys(ctx, t.Business.BusinessID)
	if err != nil {
		return err
	}
	for _, k := range keys {
		switch k.Digest {
		case seald.KeyDigest(t.SubscriptionKey):
			out["subscription_key_id"] = k.ID
		case seald.KeyDigest(t.APIKey):
			out["api_key_id"] = k.ID
		}
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(out)
	}
	fmt.Fprintf(stdout, "business_id          %s\nproject_id           %s\nsubscription_key     %s\nsubscription_key_id  %s\napi_key              %s\napi_key_id           %s\n",
		out["business_id"], out["project_id"], out["subscription_key"], out["subscription_key_id"], out["api_key"], out["api_key_id"])
	fmt.Fprintln(stderr, "Keep the keys now: seald stores only their digests (the subscription key sealed with the master key). "+
		"Rotate or revoke one by its id: seald key rotate --id "+out["api_key_id"])
	return nil
}

// projectRate changes a project's own request rate per API key; a running serve applies it within its auth
// cache's lifetime (--auth-cache-ttl).
func projectRate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg wiring.Config
	fs := newFlagSet("project rate", "--project ID --rate-limit N --rate-burst N", stderr)
	wiring.StoreFlags(fs, &cfg)
	project := fs.String("project", "", "project id (prj_...)")
	perSecond := fs.Float64("rate-limit", 0, "requests per second each API key of the project may make (0: serve's --rate-limit)")
	burst := fs.Int("rate-burst", 0, "burst of requests each API key of the project may make (0: serve's --rate-burst)")
	if _, err := parseArgs(fs, args, getenv); err != nil {
		return err
	}
	if *project == "" {
		fs.Usage()
		return usageError("project rate needs --project")
	}
	svc, closeFn, err := openOperator(ctx, &cfg, getenv)
	if err != nil {
		return err
	}
	defer closeFn()
	if err := svc.SetProjectRate(ctx, seald.Operator(), *project, *perSecond, *burst); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "project %s: %g requests/s, burst %d per API key (0: the server's)\n", *project, *perSecond, *burst)
	return nil
}

func keyCommand(ctx context.Context, sub string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg wiring.Config
	fs := newFlagSet("key "+sub, map[string]string{
		"issue": "--business ID | --project ID [--json]", "list": "[--business ID] [--json]",
		"rotate": "--id KEY_ID [--overlap 24h] [--json]", "revoke": "--id KEY_ID [--json]",
	}[sub], stderr)
	wiring.StoreFlags(fs, &cfg)
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
	if _, err := parseArgs(fs, args, getenv); err != nil {
		return err
	}
	switch {
	case sub == "issue" && (business == "") == (project == ""):
		fs.Usage()
		return usageError("key issue needs exactly one of --business or --project")
	case (sub == "rotate" || sub == "revoke") && id == "":
		fs.Usage()
		return usageError("key %s needs --id KEY_ID (the id column of seald key list, or api_key_id of seald tenant create)", sub)
	}
	svc, closeFn, err := openOperator(ctx, &cfg, getenv)
	if err != nil {
		return err
	}
	defer closeFn()
	switch sub {
	case "issue":
		secret, k, err := svc.IssueKey(ctx, seald.Operator(), business, project)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "Keep the secret now: it is shown only once. Rotate or revoke this key by its id: seald key rotate --id %s\n", k.ID)
		return printKey(stdout, asJSON, k, secret, "")
	case "revoke":
		k, err := svc.RevokeKey(ctx, seald.Operator(), id)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "Key %s no longer authenticates; the keys of business %s: seald key list --business %s\n", k.ID, k.BusinessID, k.BusinessID)
		return printKey(stdout, asJSON, k, "", "")
	case "rotate":
		secret, k, err := svc.RotateKey(ctx, seald.Operator(), id, overlap)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "Key %s is the successor of %s, which keeps working for %s (--overlap); to stop it sooner: seald key revoke --id %s\n",
			k.ID, id, overlap, id)
		return printKey(stdout, asJSON, k, secret, id)
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

// printKey prints a key; replaces is the id of the key it succeeds (key rotate), or "".
func printKey(w io.Writer, asJSON bool, k *seald.Key, secret, replaces string) error {
	if asJSON {
		m := keyJSON(k, secret)
		if replaces != "" {
			m["replaces"] = replaces
		}
		return json.NewEncoder(w).Encode(m)
	}
	fmt.Fprintf(w, "id      %s\nkind    %s\nprefix  %s\n", k.ID, k.Kind, k.Prefix)
	if secret != "" {
		fmt.Fprintf(w, "secret  %s\n", secret)
	}
	if replaces != "" {
		fmt.Fprintf(w, "replaces %s\n", replaces)
	}
	if k.RevokedAt != nil {
		fmt.Fprintf(w, "revoked %s\n", k.RevokedAt.Format(time.RFC3339))
	}
	return nil
}

func recordCommand(ctx context.Context, sub string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg wiring.Config
	synopsis := "REFERENCE [--reason TEXT]"
	switch sub {
	case "history":
		synopsis = "REFERENCE [--json]"
	case "erase":
		synopsis = "REFERENCE --reason TEXT"
	}
	fs := newFlagSet("record "+sub, synopsis, stderr)
	wiring.StoreFlags(fs, &cfg)
	var reason *string
	var asJSON *bool
	if sub == "history" {
		asJSON = fs.Bool("json", false, "print the changes as JSON")
	} else {
		reason = fs.String("reason", "", "why, for the audit trail")
	}
	pos, err := parseArgs(fs, args, getenv, "REFERENCE")
	if err != nil {
		return err
	}
	ref := pos[0]
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
		fmt.Fprintf(stdout, "%s is %s; %s\n", r.Reference, r.Status, plural(len(trail), "status change", "status changes"))
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
	fs := newFlagSet("keys rotate", "[--master] [--signing]", stderr)
	wiring.SecretsFlags(fs, &cfg)
	master := fs.Bool("master", false, "make a new master key current (it wraps the data keys of new records)")
	signing := fs.Bool("signing", false, "make a new signing key current (it signs proof bundles; the old one is listed as retired)")
	if _, err := parseArgs(fs, args, getenv); err != nil {
		return err
	}
	if !*master && !*signing {
		fs.Usage()
		return usageError("keys rotate: give --master, --signing or both")
	}
	path := cfg.SecretsPath()
	if _, err := os.Stat(path); err != nil {
		return noSecretsFile("keys rotate", &cfg)
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
		fmt.Fprintf(stdout, "master key %s is current; %s still open what they sealed\n", k.MasterKeyID(),
			plural(k.MasterKeys()-1, "older one", "older ones"))
	}
	if *signing {
		keys := k.SigningKeys()
		fmt.Fprintf(stdout, "signing key %s is current; %s in the trust root\n", keys[0].ID,
			plural(len(keys)-1, "retired one stays", "retired ones stay"))
	}
	fmt.Fprintf(stdout, "written to %s: restart every instance that uses it\n", path)
	if *signing {
		fmt.Fprintf(stdout, "then export the trust root again and give it to verifiers: a trust root exported before lacks key %s, "+
			"so the bundles it signs do not verify against it: seald trust export --out trust.json\n", k.SigningKeys()[0].ID)
	}
	return nil
}

// tenantUpdate changes a business's details and, with --project, one of its projects'; only the flags given
// change anything. A running serve shows the change within its auth cache's lifetime (--auth-cache-ttl).
func tenantUpdate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg wiring.Config
	fs := newFlagSet("tenant update", "--business ID [--name N] [--description D] [--logo URL] [--website URL] [--project ID --project-name N ...]", stderr)
	wiring.StoreFlags(fs, &cfg)
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
	if _, err := parseArgs(fs, args, getenv); err != nil {
		return err
	}
	if u.BusinessID == "" {
		fs.Usage()
		return usageError("tenant update needs --business")
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	delete(given, "data-dir")
	delete(given, "database")
	delete(given, "secrets-file")
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
		fs.Usage()
		return usageError("tenant update: nothing to change: give --name, --description, --logo, --website or --project-* flags")
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
	fmt.Fprintf(stdout, "business %s: name %q, description %q, logo %q, website %q\n", b.BusinessID, b.Name, b.Description, b.Logo, b.Website)
	if p != nil {
		fmt.Fprintf(stdout, "project %s: name %q, description %q, logo %q, retain %s\n", p.ProjectID, p.Name, p.Description, p.Logo,
			seald.FormatRetention(p.Retain))
	}
	return nil
}

// noSecretsFile is the error of a command that changes the secrets file when there is none: it names the
// path and how a store (and its secrets file) is created.
func noSecretsFile(cmd string, cfg *wiring.Config) error {
	return fmt.Errorf("%s: no secrets file at %s: give the --data-dir (or --secrets-file) of an existing store, "+
		"or create one by running 'seald serve --data-dir %s' once", cmd, cfg.SecretsPath(), cfg.DataDir)
}
