package seald

// Selective disclosure (issue 35, docs/disclosure.md) on the service's side: the salts come from the record's
// data key, the commitment is kept at sealing (Service.create) and anchored beside the content leaf, and the
// owner's package is made again from the data and the key whenever asked. The formats and their checks are
// package proof's (proof.BuildSD, proof.Presentation).

// DisclosureKeyer derives a record's disclosure secret from its wrapped data key (Record.DataKey), so that
// destroying the key destroys every salt.
type DisclosureKeyer interface {
	DisclosureSecret(reference, dataKey string) ([]byte, error)
}
