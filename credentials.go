package seald

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"seald.dev/seald/credential"
)

// Records as verifiable credentials (docs/credentials.md): the owner asks for a record's W3C VC 2.0 credential
// (an eddsa-rdfc-2022 Data Integrity proof) or its SD-JWT VC, signed by the issuer's key; verifiers resolve
// the issuer's did:web DID document and read the record's status from status lists the service publishes.

// CredentialStatuses is the store's view of the records' places in the status lists: a record's status index
// is its insertion sequence (from 0), which every record has, those sealed before credentials included.
type CredentialStatuses interface {
	// StatusIndex returns a record's status index; ENOTFOUND for an unknown reference.
	StatusIndex(ctx context.Context, reference string) (int64, error)
	// StatusesBetween returns the records of status index in [from, to) that are not ACTIVE (or whose token
	// was revoked on chain, as REVOKED), by index.
	StatusesBetween(ctx context.Context, from, to int64) (map[int64]Status, error)
}

// Credential formats of GET /verification/api/v1/credential.
const (
	FormatVC       = "vc"
	FormatSDJWTVC  = "sd-jwt-vc"
	MediaTypeVC    = "application/vc"
	MediaTypeSDJWT = "application/dc+sd-jwt"
)

// StatusListMaxAge is how long a verifier may keep a status list (its Cache-Control max-age and ttl): a status
// change shows in the lists served at once, and in a verifier's copy at its next fetch after at most this.
const StatusListMaxAge = 30 * time.Second

// Public paths of the credentials' documents, under the service's public URL.
const (
	DIDDocumentPath     = "/.well-known/did.json" // the paths also written in httpapi/routes.go
	ContextPath         = "/credentials/contexts/v1"
	StatusListPath      = "/credentials/status/" // + {purpose}/{list}
	StatusListTokenPath = "/credentials/status-tokens/"
)

// IssuedCredential is the answer of GET /verification/api/v1/credential.
type IssuedCredential struct {
	Format    string `json:"format"`
	MediaType string `json:"media_type"`
	Issuer    string `json:"issuer"`
	// Credential is the credential: a JSON object (vc) or the SD-JWT VC's compact string (sd-jwt-vc).
	Credential json.RawMessage `json:"credential"`
}

// CredentialIssuer chooses who issues a record's credential and the key that signs it. It is the one place
// where a business whose domain is verified will issue under its own DID (not built yet); ServiceIssuer, the
// default, issues every record under the service's own did:web.
type CredentialIssuer interface {
	IssuerFor(ctx context.Context, r *Record) (did string, key credential.Key, err error)
}

// MaxStatusList bounds the list numbers served (2^20 lists of ListSize records each).
const MaxStatusList = 1 << 20

// ParseStatusList reads a status list number of a public path; ENOTFOUND for anything else, since the path
// names no list.
func ParseStatusList(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n >= MaxStatusList || strconv.FormatInt(n, 10) != s {
		return 0, Errorf(ENOTFOUND, "no status list %q", s)
	}
	return n, nil
}

// CredentialContext is seald's JSON-LD context (served at ContextPath) as embedded in the binary.
func CredentialContext() ([]byte, bool) { return credential.Context(credential.ContextSeald) }
