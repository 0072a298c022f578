package main

import (
	"context"
	"io"

	"seald.dev/seald/internal/wiring"
)

// serve runs the API and the pipeline until ctx ends, then shuts down in order: stop accepting, drain the
// requests in flight, let running steps finish, close the parts and the store. What it runs is put together
// by wiring.Build, as for sealbench and the operator commands.
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg wiring.Config
	fs := wiring.FlagSet("serve", &cfg, true)
	fs.SetOutput(stderr)
	setUsage(fs, "[flags]")
	if _, err := parseArgs(fs, args, getenv); err != nil {
		return err
	}
	app, err := wiring.Build(ctx, cfg, wiring.Options{Getenv: getenv, Stdout: stdout, Stderr: stderr})
	if err != nil {
		return err
	}
	return app.Run(ctx)
}
