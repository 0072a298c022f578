package seald

import (
	"crypto/hmac"
	"crypto/sha256"
)

// Selective disclosure (issue 35, docs/disclosure.md) on the service's side: the salts come from the record's
// data key, the commitment is computed by the store step (DisclosureCommitment) and anchored beside the
// content leaf, and the owner's package is made again from the data and the key whenever asked. The formats
// and their checks are package proof's (proof.BuildSD, proof.Presentation).

// DisclosureKeyer derives a record's disclosure secret from its wrapped data key (Record.DataKey), so that
// destroying the key destroys every salt.
type DisclosureKeyer interface {
	DisclosureSecret(reference, dataKey string) ([]byte, error)
}

// disclosureBlind is the record's blinding node of its batch's Merkle tree (evm.BatchTree): 32 bytes no one
// but seald knows, paired with the record's content leaf so that no node of a presentation's Merkle path is a
// function of the content hash alone (which would let a verifier confirm guesses of the hidden members).
func disclosureBlind(secret []byte) [32]byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("blind\n"))
	var b [32]byte
	copy(b[:], m.Sum(nil))
	return b
}
