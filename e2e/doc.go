// Package e2e holds seald's system tests: each runs the real seald binary (built once per test run from
// ./cmd/seald) as a child process, alone or as a cluster, beside the real peers (Kubo, geth, mailpit,
// PostgreSQL, Chromium), and talks to it as its users do: HTTP, the CLI, the browser, the files it writes.
// cmd/seald keeps the tests of its commands that need no running serve.
//
// The package has no code of its own; its tests run in `make test` with the rest.
package e2e
