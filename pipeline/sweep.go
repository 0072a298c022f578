package pipeline

import (
	"context"
	"time"

	"seald.dev/seald"
)

// sweepPage is how many records the sweep reads at once.
const sweepPage = 500

// Pinned is what the sweep asks of a BlobStore that can tell whether it still keeps a file (the embedded
// store and Kubo can); with a BlobStore that cannot, erased records are not swept.
type Pinned interface {
	Pinned(ctx context.Context, cid string) (bool, error)
}

// Sweep re-queues the work whose job is gone while the truth disagrees with the record: a REVOKED record
// whose token the contract does not show revoked (a revocation job deleted by an earlier version after its
// retries, a chain restored from a backup) gets a revocation job, and an erased record whose copy IPFS still
// keeps gets an erasure job. A record that already has a job of the kind is left to it. Run calls it at
// start; it returns how many jobs it queued. A chain or IPFS that cannot answer leaves the rest for the next
// start, with the error.
func (p *Pipeline) Sweep(ctx context.Context) (int, error) {
	p.init()
	queued := 0
	for network, a := range p.Anchorers {
		after := uint64(0)
		for {
			rs, err := p.Store.RevokedTokens(ctx, network, after, sweepPage)
			if err != nil {
				return queued, err
			}
			for _, r := range rs {
				after = r.TokenID
				revoked, err := a.IsRevoked(ctx, r.TokenID)
				if err != nil {
					return queued, err
				}
				if revoked {
					continue
				}
				ok, err := p.Store.RequeueJob(ctx, &seald.Job{Kind: seald.RevokeJob(network), Reference: r.Reference, RunAt: p.now()})
				if err != nil {
					return queued, err
				}
				if ok {
					queued++
					p.Logger.Warn("REVOKED record not revoked on chain: revocation queued again", "network", network,
						"reference", r.Reference, "token", r.TokenID)
				}
			}
			if len(rs) < sweepPage {
				break
			}
		}
	}
	pins, ok := p.Blobs.(Pinned)
	if !ok {
		return queued, nil
	}
	after := ""
	for {
		rs, err := p.Store.ErasedCopies(ctx, after, sweepPage)
		if err != nil {
			return queued, err
		}
		for _, r := range rs {
			after = r.Reference
			kept, err := pins.Pinned(ctx, r.CID)
			if err != nil {
				return queued, err
			}
			if !kept {
				continue
			}
			ok, err := p.Store.RequeueJob(ctx, &seald.Job{Kind: seald.JobErase, Reference: r.Reference, RunAt: p.now()})
			if err != nil {
				return queued, err
			}
			if ok {
				queued++
				p.Logger.Warn("erased record's copy still stored: erasure queued again", "reference", r.Reference, "cid", r.CID)
			}
		}
		if len(rs) < sweepPage {
			break
		}
	}
	return queued, nil
}

// sweepAtStart runs Sweep until it completes once, retrying while a chain or IPFS cannot answer.
func (p *Pipeline) sweepAtStart(ctx context.Context) {
	for failures := 1; ctx.Err() == nil; failures++ {
		n, err := p.Sweep(ctx)
		if err == nil {
			if n > 0 {
				p.Logger.Warn("sweep at start queued jobs again", "jobs", n)
				p.Wake()
				p.wakeLeader()
			}
			return
		}
		if ctx.Err() == nil {
			p.Logger.Warn("sweep at start", "err", err, "failures", failures)
		}
		sleep(ctx, min(p.Retry.Delay(failures), time.Minute))
	}
}
