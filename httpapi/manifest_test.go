package httpapi_test

import (
	"context"
	"encoding/json"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// GET /batches/{network}/{token_id} answers the manifest as a bare document, without keys; anything that names
// no confirmed batch is a 404 in the plain envelope.
func TestBatchManifestRoute(t *testing.T) {
	a := newAPI(t)
	a.svc.BatchManifestFn = func(_ context.Context, network, tokenID string) (*proof.BatchManifest, error) {
		if network != "POLYGON" || tokenID != "41" {
			return nil, seald.Errorf(seald.ENOTFOUND, "no confirmed batch holds token %s on %s", tokenID, network)
		}
		return &proof.BatchManifest{Version: 1, Network: network, ChainID: "137", FirstTokenID: 41, Count: 1,
			Tokens: []proof.ManifestToken{{TokenID: 41, ContentNode: "0x01"}}}, nil
	}
	r := a.do("GET", "/batches/POLYGON/41", "", "-Ocp-Apim-Subscription-Key", "-Api-Key")
	var m proof.BatchManifest
	if r.code != 200 || r.header.Get("Content-Type") != "application/json; charset=utf-8" || json.Unmarshal([]byte(r.body), &m) != nil ||
		m.FirstTokenID != 41 || len(m.Tokens) != 1 {
		t.Errorf("GET /batches/POLYGON/41: %d %q %s", r.code, r.header.Get("Content-Type"), r.body)
	}
	a.do("GET", "/batches/EOS/41", "", "-Ocp-Apim-Subscription-Key", "-Api-Key").plainError(t, 404, "no confirmed batch holds token 41 on EOS")
}
