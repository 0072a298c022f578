package pipeline

import (
	"context"

	"seald.dev/seald"
)

// mailData is the data the record's e-mail attaches: its canonical JSON, read back from IPFS and decrypted,
// which the verification page asks its visitor for. A record sealed with a password keeps it out of the
// e-mail (the sealer put a password on the data: the recipient gets it from the sealer, not in a message
// anybody on the way may read); an erased record has none. A copy that cannot be read now (IPFS not
// answering) is an error: the step is retried, as for any other failure before the e-mail leaves.
func (p *Pipeline) mailData(ctx context.Context, r *seald.Record) (data []byte, withheld string, err error) {
	switch {
	case r.HasPassword:
		return nil, seald.WithheldPassword, nil
	case r.Erased():
		return nil, seald.WithheldErased, nil
	case !r.Downloadable:
		return nil, seald.WithheldNoCopies, nil
	}
	if r.CID == "" {
		b, err := p.Store.Payload(ctx, r.Reference)
		if err != nil {
			return nil, "", err
		}
		if !seald.SealedPayload(b) {
			return b, "", nil
		}
		b, err = p.Secrets.OpenDetached(r.Reference, r.DataKey, b)
		return b, "", err
	}
	if p.Blobs == nil {
		return nil, "", seald.Errorf(seald.EUNAVAILABLE, "IPFS is not configured")
	}
	env, err := p.Blobs.Get(ctx, r.CID)
	if err != nil {
		return nil, "", err
	}
	b, err := p.Secrets.OpenDetached(r.Reference, r.DataKey, env)
	return b, "", err
}
