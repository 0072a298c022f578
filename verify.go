package seald

import (
	"seald.dev/seald/proof"
)

// Verification is what a verification operation answers: the record and its owner.
type Verification struct {
	// Record holds the fields of Record.Brief only, unless the lookup asked for it Whole.
	Record   *Record
	Business *Business
	Project  *Project
	// SameHash is how many records the caller may see hold the record's hash, the record included; it is
	// counted for lookups by hash or data only, and is 0 for the others.
	SameHash int
	// Proof is the record's proof bundle when the lookup asked for it (Lookup.Proof); nil otherwise, and
	// until the record is anchored.
	Proof *proof.Bundle
}

// Lookup names the record to verify by exactly one key.
type Lookup struct {
	Reference string
	Hash      string
	CID       string // already checked to be a well-formed CID by the caller
	Network   string // with TokenID
	TokenID   string // decimal
	Data      []byte // raw JSON object, hashed canonically
	OVI       string // an encrypted_ovi
	// Whole reads the record whole; otherwise only the fields of Record.Brief are read (lookups by CID and
	// token read it whole all the same).
	Whole bool
	// Proof asks for the record's proof bundle (Verification.Proof). Its Merkle path is not among the brief
	// fields, so a lookup that asks for it reads the record whole, whatever Whole says.
	Proof bool
}
