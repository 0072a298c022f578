package client

import "seald.dev/seald/wire"

// The API's bodies are package wire's; the names below keep this package's API as it was.
type (
	Verification          = wire.Verification
	Owner                 = wire.Owner
	Business              = wire.Business
	Project               = wire.Project
	Blockchain            = wire.Blockchain
	IPFS                  = wire.IPFS
	Details               = wire.Details
	Misc                  = wire.Misc
	Proof                 = wire.Proof
	StatusRecord          = wire.StatusRecord
	AuthenticationRequest = wire.AuthenticationRequest
	Flag                  = wire.Flag
	AuthenticationResult  = wire.AuthenticationResult
	GeneratorResult       = wire.GeneratorResult
	StatusChange          = wire.StatusChange
	PublicKey             = wire.PublicKey
)

// Pipeline states of StatusRecord.State that end a record's processing.
const (
	StateCompleted = wire.StateCompleted
	StateFailed    = wire.StateFailed
)

// Networks of the authentication operations and of verification by token id.
const (
	Polygon = wire.Polygon
	EOS     = wire.EOS
)
