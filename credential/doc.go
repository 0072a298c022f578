// Package credential issues and checks seald's records as standard verifiable credentials, so that any
// verifier reads them with the libraries it already has:
//
//   - a W3C Verifiable Credential (Data Model 2.0) secured by a Data Integrity proof with the eddsa-rdfc-2022
//     cryptosuite (RDF Dataset Canonicalization by github.com/piprate/json-gold, Ed25519), its anchor as
//     evidence and Bitstring Status List entries for revocation and suspension (vc.go, bitstring.go);
//   - the same record as an SD-JWT VC (typ dc+sd-jwt) whose status is an IETF Token Status List entry
//     (sdjwtvc.go, tokenstatus.go);
//   - the issuer's did:web DID document (did.go).
//
// The JSON-LD contexts it needs are embedded (contexts.go) and nothing is fetched at run time: canonicalizing
// a document that names any other context is an error. The package imports no store and no service: it takes
// the facts of a record as a plain struct, so a verifier could vendor it alone.
package credential
