package pipeline_test

import (
	"encoding/hex"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/jcs"
	"seald.dev/seald/proof"
)

// The selective-disclosure commitment is computed off the request path (issue 45): Seal stores the record
// without it, and the store step fills it in from the persisted payload and data key, with the bytes sealing
// computed before (proof.SDCommitment of the canonical data under the record's disclosure secret). A crash
// between acceptance and the store step, and a store step run again after a crash, give the same commitment,
// which is then anchored and makes the owner's package.
func TestPipelineDisclosureOffRequestPath(t *testing.T) {
	for _, c := range []struct {
		name  string
		crash string // a crash point of the store step; "": the process stops before the store step runs
	}{
		{"crash before the store step", ""},
		{"crash after the IPFS put", seald.CrashAfterIPFSAdd},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnvOn(t, embeddedChain(t).anchorer) // the fake chain anchors no disclosure leaves
			ctx := t.Context()
			r := e.seal(7)
			stored, err := e.store.Record(ctx, r.Reference)
			if err != nil {
				t.Fatal(err)
			}
			if r.Disclosure != "" || stored.Disclosure != "" || stored.DisclosureBlind != "" {
				t.Fatalf("the request path computed the commitment: returned %q, stored %q / %q", r.Disclosure,
					stored.Disclosure, stored.DisclosureBlind)
			}
			if stored.DataKey == "" {
				t.Fatal("the record has no data key: its commitment cannot follow from what was persisted")
			}
			// What sealing used to store (seal.go before issue 45).
			canon, err := jcs.Canonicalize([]byte(`{"n":7}`))
			if err != nil {
				t.Fatal(err)
			}
			secret, err := e.svc.Secrets.DisclosureSecret(r.Reference, stored.DataKey)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := proof.SDCommitment(canon, secret)
			if err != nil {
				t.Fatal(err)
			}
			want := hex.EncodeToString(sum[:])
			_, wantBlind, err := seald.DisclosureCommitment(e.svc.Secrets, r.Reference, stored.DataKey, canon)
			if err != nil {
				t.Fatal(err)
			}
			if c.crash != "" {
				var hit interface{ Load() bool }
				e.crash, hit = crashOnce(c.crash)
				e.start(8)
				e.wait(r.Reference, "crashed", func(*seald.Record) bool { return hit.Load() })
			}
			e.restart(8) // a new process on what the last one persisted
			got := e.waitState(r.Reference, seald.StateCompleted)
			if got.Disclosure != want || got.DisclosureBlind != wantBlind {
				t.Errorf("the store step's commitment %q / blind %q, want %q / %q", got.Disclosure, got.DisclosureBlind,
					want, wantBlind)
			}
			if got.DisclosurePath == nil {
				t.Error("the commitment was not anchored with the record")
			}
			pkg, err := e.svc.Disclosure(ctx, e.caller, r.Reference, "")
			if err != nil {
				t.Fatal(err)
			}
			if pkg.Commitment != want {
				t.Errorf("the package's commitment %q, want %q", pkg.Commitment, want)
			}
		})
	}
}
