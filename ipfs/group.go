package ipfs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	dshelp "github.com/ipfs/boxo/datastore/dshelp"
	blocks "github.com/ipfs/go-block-format"
	"github.com/ipfs/go-cid"
	flatfs "github.com/ipfs/go-ds-flatfs"

	"seald/internal/group"
)

// Group puts. Storing one small file durably costs four fsyncs (the block's file and its directory, the
// pin's file and its directory), about 7 ms; the pipeline stores one envelope per record from several
// workers at once, so those fsyncs, not the disk's bandwidth, bounded it. Concurrent Puts are instead
// handed to one goroutine that places the blocks and pins of every queued Put (up to maxGroup of them) and
// syncs them together (see place). The guarantee stays that of one Put: Put returns only after its blocks
// and pin are durable, and a pin is only written once all the blocks it names are.
//
// Writing a file's own bytes (staging) fails for its caller alone; a failed sync or rename fails the whole
// group, every caller getting the error. A caller whose context ends while its Put is queued gets the
// context's error and nothing is written; once the group has taken its Put, it waits for the group's end
// and gets its outcome.

// defaultMaxGroup bounds the files of one group.
const defaultMaxGroup = 128

// EmbeddedOption changes how OpenEmbedded sets up the store.
type EmbeddedOption func(*embeddedOptions)

type embeddedOptions struct {
	maxGroup int
}

// WithoutGroupPut makes every Put write and sync its own files, as if Puts never ran at the same time. It
// exists to measure group puts against the plain path (BenchmarkEmbeddedPutParallel).
func WithoutGroupPut() EmbeddedOption { return func(o *embeddedOptions) { o.maxGroup = 1 } }

// putReq is one caller's imported file waiting to be written.
type putReq struct {
	root   cid.Cid
	blocks []blocks.Block
	staged []staged // the new blocks, then the pin, written by the caller under temporary names
}

// putGroup writes the queued Puts in groups; the queue, the cancellation rule and the draining on close are
// those of package group, whose abandon hook removes the staged files of a Put that will not be placed.
type putGroup struct {
	e *Embedded
	g *group.Committer[*putReq]
}

func newPutGroup(e *Embedded, maxGroup int) *putGroup {
	g := &putGroup{e: e}
	g.g = group.New(maxGroup, 1, g.write, func(r *putReq) { unstage(r.staged) })
	return g
}

// put queues a file's blocks and waits until they and its pin are durable.
func (g *putGroup) put(ctx context.Context, root cid.Cid, bs []blocks.Block) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	req := &putReq{root: root, blocks: bs}
	// Each caller writes its own files, so that the writing is spread over the callers and overlaps the
	// committer's syncs; the committer only syncs and renames.
	var err error
	if req.staged, err = g.e.stage(ctx, root, bs); err != nil {
		unstage(req.staged)
		return err
	}
	err = g.g.Submit(ctx, req)
	if errors.Is(err, group.ErrClosed) {
		return errors.New("ipfs: the embedded store is closed")
	}
	return err
}

// close stops taking Puts and waits for the queued ones to be written.
func (g *putGroup) close() { g.g.Close() }

// write stores one group (see place). What fails there is the filesystem's (a sync or a rename), not one
// file's, so every Put of the group gets the error, and its caller tries again later.
func (g *putGroup) write(group []*putReq) []error {
	err := g.e.place(group)
	if err != nil {
		err = fmt.Errorf("ipfs: writing a group of %d files: %w", len(group), err)
	}
	errs := make([]error, len(group))
	for i, r := range group {
		unstage(r.staged)
		errs[i] = err
	}
	return errs
}

// staged is a file written under a temporary name, to be renamed into place.
type staged struct {
	tmp, dir, final string
	pin             bool
}

// shard is the flatfs sharding of both datastores (Kubo's).
var shard = flatfs.NextToLast(2).Func()

// stage writes a file's new blocks and its pin under temporary names, in the flatfs layout's own temporary
// directories (flatfs empties them when it opens, so a crash leaves no litter). Blocks already stored are
// skipped.
func (e *Embedded) stage(ctx context.Context, root cid.Cid, bs []blocks.Block) ([]staged, error) {
	var out []staged
	for _, b := range bs {
		if ok, err := e.bs.Has(ctx, b.Cid()); err != nil {
			return out, err
		} else if ok {
			continue
		}
		f, err := stageFile(filepath.Join(e.dir, "blocks"), dshelp.MultihashToDsKey(b.Cid().Hash()).String()[1:], b.RawData())
		if err != nil {
			return out, err
		}
		out = append(out, f)
	}
	f, err := stageFile(filepath.Join(e.dir, "pins"), pinKey(root).String()[1:], []byte(root.String()+"\n"))
	f.pin = true
	return append(out, f), err
}

// stageFile writes data to a temporary file of the flatfs datastore at root, for the file of key name.
func stageFile(root, name string, data []byte) (staged, error) {
	dir := filepath.Join(root, shard(name))
	f, err := os.CreateTemp(filepath.Join(root, ".temp"), "put-")
	if err != nil {
		return staged{}, err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return staged{tmp: f.Name(), dir: dir, final: filepath.Join(dir, name+".data")}, err
}

// unstage removes the temporary files of a Put that will not be placed.
func unstage(files []staged) {
	for _, f := range files {
		if f.tmp != "" {
			os.Remove(f.tmp)
		}
	}
}

// place makes a group's staged files durable under their names. Each caller has written and fsynced its
// own files (stage), all at once; here the blocks are renamed into place and the directories that gained
// a name are fsynced, all at once, then the same for the pins. So a block's name never points at data that
// is not on disk, and a pin never names a block that is not. The fsyncs of one step run concurrently, so
// the filesystem commits them in one journal transaction instead of one each. (flatfs writes one file at a
// time, with an fsync of the file and one of its directory, and has no way to share them.) Two Puts of one
// block rename identical bytes onto one name, which is harmless.
func (e *Embedded) place(group []*putReq) error {
	for _, pins := range []bool{false, true} {
		dirs := map[string]bool{}
		for _, r := range group {
			for i, f := range r.staged {
				if f.pin != pins {
					continue
				}
				if err := os.MkdirAll(f.dir, 0o755); err != nil {
					return err
				}
				if err := os.Rename(f.tmp, f.final); err != nil {
					return err
				}
				r.staged[i].tmp = ""
				dirs[f.dir] = true
				dirs[filepath.Dir(f.dir)] = true // a new shard directory's own name
			}
		}
		if err := syncDirs(dirs); err != nil {
			return err
		}
	}
	return nil
}

// syncDirs fsyncs directories concurrently.
func syncDirs(dirs map[string]bool) error {
	errs := make(chan error, len(dirs))
	for d := range dirs {
		go func() { errs <- syncDir(d) }()
	}
	var err error
	for range dirs {
		err = errors.Join(err, <-errs)
	}
	return err
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
