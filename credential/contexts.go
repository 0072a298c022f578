package credential

import (
	"embed"
	"encoding/json"
	"fmt"

	"github.com/piprate/json-gold/ld"
)

// The URLs of the JSON-LD contexts a seald credential names, in the order its @context lists them.
const (
	// ContextV2 is the W3C Verifiable Credentials 2.0 base context (which also defines the Data Integrity and
	// Bitstring Status List terms).
	ContextV2 = "https://www.w3.org/ns/credentials/v2"
	// ContextSeald is seald's own context: @vocab for the sealed data's members (credentialSubject claims) and
	// the terms of the anchor evidence. The service also serves it (ContextPath) so that verifiers can load it.
	ContextSeald = "https://seald.dev/ns/credentials/v1"
)

//go:embed contexts/*.jsonld
var contextFiles embed.FS

// contextFile maps each context URL to its embedded file: the official W3C copy and seald's own.
var contextFile = map[string]string{
	ContextV2:    "contexts/credentials-v2.jsonld",
	ContextSeald: "contexts/seald-v1.jsonld",
}

// Context returns the embedded bytes of a context by URL; ok is false for a context seald does not embed.
func Context(url string) (b []byte, ok bool) {
	name, ok := contextFile[url]
	if !ok {
		return nil, false
	}
	b, err := contextFiles.ReadFile(name)
	if err != nil {
		panic(err) // embedded at build time: cannot happen
	}
	return b, true
}

// embeddedLoader serves the embedded contexts only. Any other URL is an error, so canonicalization never
// reaches the network and a document naming a context seald does not know fails instead of changing meaning.
type embeddedLoader struct{}

var _ ld.DocumentLoader = embeddedLoader{}

// LoadDocument parses the embedded context afresh on each call, so no caller can change a shared copy.
func (embeddedLoader) LoadDocument(u string) (*ld.RemoteDocument, error) {
	b, ok := Context(u)
	if !ok {
		return nil, ld.NewJsonLdError(ld.LoadingDocumentFailed, fmt.Sprintf("context %s is not one seald embeds", u))
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, ld.NewJsonLdError(ld.LoadingDocumentFailed, err)
	}
	return &ld.RemoteDocument{DocumentURL: u, Document: doc}, nil
}

// Canonicalize returns the RDFC-1.0 (URDNA2015) canonical N-Quads of a JSON-LD document (a value of
// encoding/json), resolving contexts from the embedded ones only. Safe mode makes a member JSON-LD would
// silently drop an error instead, so what is signed is all that is shown.
func Canonicalize(doc any) (string, error) {
	opts := ld.NewJsonLdOptions("")
	opts.ProcessingMode = ld.JsonLd_1_1
	opts.Algorithm = ld.AlgorithmURDNA2015
	opts.Format = "application/n-quads"
	opts.DocumentLoader = embeddedLoader{}
	opts.SafeMode = true
	out, err := ld.NewJsonLdProcessor().Normalize(doc, opts)
	if err != nil {
		return "", err
	}
	s, ok := out.(string)
	if !ok {
		return "", fmt.Errorf("canonicalization gave %T, not N-Quads", out)
	}
	return s, nil
}
