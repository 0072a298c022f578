package ipfs

import (
	"context"
	"errors"
	"fmt"

	blocks "github.com/ipfs/go-block-format"
	"github.com/ipfs/go-cid"

	"seald.dev/seald/internal/group"
)

// Group puts. Each Put's batch costs a sync of pebble's write-ahead log. Pebble already lets concurrent
// synced commits share one fsync, but each still goes through its commit pipeline on its own; the pipeline
// stores one envelope per record from many workers at once, so concurrent Puts are instead handed to one
// goroutine that writes the blocks and pins of every queued Put (up to maxGroup of them) in one batch and
// commits it with one sync. The guarantee stays that of one Put: Put returns only after its blocks and pin
// are durable, and the batch is atomic, so a pin is never stored without the blocks it names.
//
// A failed commit fails the whole group, every caller getting the error. A caller whose context ends while
// its Put is queued gets the context's error and nothing is written; once the group has taken its Put, it
// waits for the group's end and gets its outcome.

// defaultMaxGroup bounds the files of one group.
const defaultMaxGroup = 128

// WithoutGroupPut makes every Put commit its own batch, as if Puts never ran at the same time. It exists to
// measure group puts against the plain path (BenchmarkEmbeddedPutParallel).
func WithoutGroupPut() EmbeddedOption { return func(o *embeddedOptions) { o.maxGroup = 1 } }

// putReq is one caller's imported file waiting to be written.
type putReq struct {
	ctx    context.Context
	root   cid.Cid
	blocks []blocks.Block // those not stored yet when the caller looked
}

// putGroup writes the queued Puts in groups; the queue, the cancellation rule and the draining on close are
// those of package group.
type putGroup struct {
	e *Embedded
	g *group.Committer[*putReq]
}

func newPutGroup(e *Embedded, maxGroup int) *putGroup {
	g := &putGroup{e: e}
	g.g = group.New(maxGroup, 1, g.write, nil)
	return g
}

// put queues a file's blocks and waits until they and its pin are durable.
func (g *putGroup) put(ctx context.Context, root cid.Cid, bs []blocks.Block) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// Each caller looks up which of its blocks are new, so that the lookups are spread over the callers and
	// overlap the committer's syncs.
	done, err := g.e.use()
	if err != nil {
		return err
	}
	fresh, err := g.e.missing(ctx, bs)
	done()
	if err != nil {
		return err
	}
	err = g.g.Submit(ctx, &putReq{ctx: ctx, root: root, blocks: fresh})
	if errors.Is(err, group.ErrClosed) {
		return errClosed
	}
	return err
}

// close stops taking Puts and waits for the queued ones to be written.
func (g *putGroup) close() { g.g.Close() }

// write stores one group in one batch. What fails there is the store's (the commit), not one file's, so
// every Put of the group gets the error, and its caller tries again later.
func (g *putGroup) write(group []*putReq) []error {
	err := g.commit(group)
	if err != nil {
		err = fmt.Errorf("ipfs: writing a group of %d files: %w", len(group), err)
	}
	errs := make([]error, len(group))
	for i := range group {
		errs[i] = err
	}
	return errs
}

func (g *putGroup) commit(group []*putReq) error {
	done, err := g.e.use()
	if err != nil {
		return err
	}
	defer done()
	// The group's work is not the caller's: it runs to its end whatever one caller's context says.
	ctx := context.WithoutCancel(group[0].ctx)
	batch, err := g.e.db.Batch(ctx)
	if err != nil {
		return err
	}
	for _, r := range group {
		if err := addFile(ctx, batch, r.root, r.blocks); err != nil {
			return err
		}
	}
	return batch.Commit(ctx)
}
