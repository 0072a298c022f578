// Package wiring builds a running seald from its configuration: the flags and SEALD_* variables (Config),
// the secrets file, the store a database spec names, and the adapters (IPFS, chains, mail) chosen by an
// explicit switch. cmd/seald serves with it and cmd/sealbench measures what it builds, so both run the same
// wiring; it is internal because it is the commands' business, not a library's.
package wiring
