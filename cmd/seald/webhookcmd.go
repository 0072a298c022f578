package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// webhookCommand runs `seald webhook add|list|rm|deliveries|replay` through the API, for the project of the
// API key.
func webhookCommand(ctx context.Context, sub string, args []string, getenv func(string) string, stdout, stderr io.Writer) (err error) {
	var a apiFlags
	synopsis, names := map[string]string{
		"add": "URL [--events record.completed,record.failed,record.status_changed,record.erased] [--json]", "list": "[--json]",
		"rm": "ID [--json]", "deliveries": "ID [--json]", "replay": "DELIVERY_ID [--json]",
	}[sub], map[string][]string{"add": {"URL"}, "rm": {"ID"}, "deliveries": {"ID"}, "replay": {"DELIVERY_ID"}}[sub]
	fs := apiFlagSet("webhook "+sub, synopsis, &a, stderr)
	defer func() { err = a.explain(err) }()
	asJSON := fs.Bool("json", false, "print the answer as JSON")
	var events *string
	if sub == "add" {
		events = fs.String("events", "", "comma-separated event types: record.completed, record.failed, record.status_changed, record.erased (default: all)")
	}
	pos, err := a.parse(fs, args, getenv, names...)
	if err != nil {
		return err
	}
	c, err := a.client(stderr)
	if err != nil {
		return err
	}
	switch sub {
	case "add":
		var list []string
		for _, e := range strings.Split(*events, ",") {
			if e = strings.TrimSpace(e); e != "" {
				list = append(list, e)
			}
		}
		w, err := c.CreateWebhook(ctx, pos[0], list)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(stdout, w)
		}
		fmt.Fprintf(stdout, "webhook %s → %s\nevents: %s\nsecret: %s\n(the secret is shown only now: keep it to check the signature of each delivery, docs/webhooks.md)\n",
			w.ID, w.URL, strings.Join(w.Events, ", "), w.Secret)
		return nil
	case "list":
		ws, err := c.Webhooks(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(stdout, ws)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tURL\tEVENTS\tCREATED")
		for _, w := range ws {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", w.ID, w.URL, strings.Join(w.Events, ","), w.CreatedAt)
		}
		return tw.Flush()
	case "rm":
		w, err := c.DeleteWebhook(ctx, pos[0])
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(stdout, w)
		}
		fmt.Fprintf(stdout, "deleted webhook %s (%s)\n", w.ID, w.URL)
		return nil
	case "deliveries":
		ds, err := c.Deliveries(ctx, pos[0])
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(stdout, ds)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "DELIVERY\tEVENT\tTYPE\tREFERENCE\tSTATE\tATTEMPTS\tLAST ATTEMPT\tLAST RESULT\tNEXT TRY")
		for _, d := range ds {
			result := d.LastError
			if d.LastStatusCode != 0 && result == "" {
				result = fmt.Sprint(d.LastStatusCode)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", d.ID, d.EventID, d.EventType, d.Reference, d.State,
				d.Attempts, dash(d.LastAttemptAt), dash(result), dash(d.NextAttemptAt))
		}
		return tw.Flush()
	case "replay":
		d, err := c.ReplayDelivery(ctx, pos[0])
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(stdout, d)
		}
		fmt.Fprintf(stdout, "replaying event %s as delivery %s\n", d.EventID, d.ID)
		return nil
	}
	return errors.New("unknown webhook command " + sub)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
