package seald

import (
	"time"

	"seald.dev/seald/proof"
)

// PublicRecord is what the public verification page may show of a record, to anyone without keys. The
// privacy rule is applied here, not in the page's templates: for a PRIVATE record only Private and Status are
// set, so no owner data, hash, CID or token can reach the page by a template mistake.
type PublicRecord struct {
	// Private is true for a record of a PRIVATE project.
	Private bool
	Status  Status
	// Development: the record's network is seald's embedded development chain. Set for a PRIVATE record
	// too, whose page must not read as a verdict either.
	Development bool

	// The rest is left empty for a PRIVATE record.
	Reference      string
	Hash           string // lowercase hex SHA-256 of the canonical data
	CID            string // empty until stored on IPFS
	Network        string
	Chain          Chain  // the network's contract and explorer
	TokenID        uint64 // 0 until anchored
	TxHash         string // the anchoring transaction, once its batch is confirmed
	BlockNumber    uint64 // its block
	RevokedOnChain bool
	RevokeTx       string    // the revocation's transaction, once included
	RevokedAt      time.Time // when its inclusion was seen
	RevokeReason   string    // why the owner revoked it, as the audit trail has it (revokereason.go)
	CreatedAt      time.Time
	ErasedAt       time.Time // when the record's data was erased; zero while it is kept
	Business       *Business
	Project        *Project
	// Issuer is the business as its proofs name it (issuer.go): its verified did:web domain, or self-declared.
	Issuer *proof.Issuer
}

// TokenMetadata is the ERC-721 metadata JSON of a token (the document tokenURI names), for wallets and
// explorers. A PRIVATE record's says that it exists and nothing more.
type TokenMetadata struct {
	Name        string       `json:"name"`
	Description string       `json:"description"`
	ExternalURL string       `json:"external_url,omitempty"`
	Image       string       `json:"image,omitempty"`
	Attributes  []TokenTrait `json:"attributes"`
}

// TokenTrait is one attribute of a token's metadata.
type TokenTrait struct {
	TraitType string `json:"trait_type"`
	Value     string `json:"value"`
}
