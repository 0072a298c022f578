// Package registry holds what is generated from the SealRegistry contract in contracts/: its ABI and
// bytecode as compiled by the pinned solc-js (SealRegistry.abi, .bin, .bin-runtime) and the abigen v2 Go
// bindings over them, plus the same for PlainERC721, the stock OpenZeppelin token the gas benchmark compares
// against. The files are committed so building seald needs neither node nor solc; the test in this package
// recompiles the sources and fails when the committed files drift from them.
package registry

//go:generate ../../contracts/build.sh
