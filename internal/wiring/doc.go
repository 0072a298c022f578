// Package wiring is seald's one composition root: Build puts a running seald together from its
// configuration (Config: the flags and SEALD_* variables, checked by Config.Validate), the secrets file, the
// store a database spec names, and the adapters (IPFS, chains, mail) chosen by an explicit switch, then the
// service, the pipeline, the webhook deliverer, the metrics and the API over them; App.Run serves it and
// shuts it down in order. `seald serve`, cmd/sealbench and the operator commands (in Operator mode) all call
// Build, so the bench measures and the operator commands change exactly what serve runs. It is internal
// because it is the commands' business, not a library's.
package wiring
