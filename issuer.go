package seald

// Every proof bundle, disclosure package and presentation names the business that sealed it, inside what the
// service signs (issue 41, proof/issuer.go): its id and name, and, while its domain is verified by did:web
// (identity.go), its DID, when it was verified, and a signature by its identity key. A business without a
// verified domain, or whose domain lapsed, is named self-declared and signs nothing.
