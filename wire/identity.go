package wire

import "encoding/json"

// Identity (issue 41) is a business's domain identity: the did:web DID of its domain, where it stands, and the
// DID document to publish at DocumentURL.
type Identity struct {
	BusinessID string `json:"business_id"`
	Domain     string `json:"domain"`
	DID        string `json:"did"`
	// State is pending (not verified yet), verified, or lapsed (a later check no longer found the key).
	State       string `json:"state"`
	VerifiedAt  string `json:"verified_at,omitempty"` // RFC 3339, UTC, milliseconds; while verified
	CheckedAt   string `json:"checked_at,omitempty"`  // the latest check, whatever its outcome
	Reason      string `json:"reason,omitempty"`      // why the latest check failed
	DocumentURL string `json:"document_url"`
	// Document is the DID document to publish, byte for byte as served here, at DocumentURL.
	Document json.RawMessage `json:"document"`
}
