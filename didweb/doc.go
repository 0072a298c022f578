// Package didweb is the did:web method as seald uses it to name a business by a domain it controls: the
// mapping between a DID and the URL of its DID document (with the port's colon encoded as %3A, as did:web
// says), the DID document seald asks a business to publish, with its Ed25519 keys as Multikey verification
// methods (publicKeyMultibase "z6Mk..."), the check that a fetched document names a DID and holds a key, and a
// fetcher bounded in size, time and redirects.
//
// It imports nothing of seald, so that a verifier can vendor it alone. What it refuses, it refuses with an
// error that says why, since that text is what a business sees when its domain fails verification.
package didweb
