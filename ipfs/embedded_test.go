package ipfs_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ipfs/boxo/ipld/merkledag"
	"github.com/ipfs/go-cid"
	mh "github.com/multiformats/go-multihash"

	"seald.dev/seald"
	"seald.dev/seald/ipfs"
)

const (
	KiB = 1 << 10
	MiB = 1 << 20
)

// sizes are the file sizes every round trip and parity test covers: the chunk boundary on both sides of it.
var sizes = []int{0, 1, 256 * KiB, 256*KiB + 1, 2 * MiB, 10 * MiB}

// randomBytes returns n reproducible pseudo-random bytes; distinct seeds give distinct files.
func randomBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), byte(n), byte(n >> 8), byte(n >> 16)})
	r.Read(b)
	return b
}

func openEmbedded(t testing.TB, dir string) *ipfs.Embedded {
	t.Helper()
	e, err := ipfs.OpenEmbedded(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestImportSmallFileIsOneRawBlock(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{0, 1, 1000, 256 * KiB} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			b := randomBytes(n, 1)
			f, err := ipfs.Import(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			digest, _ := mh.Encode(sum[:], mh.SHA2_256)
			if want := cid.NewCidV1(cid.Raw, digest); !f.Root.Equals(want) {
				t.Fatalf("root %s, want the raw block CID %s", f.Root, want)
			}
			if len(f.Blocks) != 1 || !bytes.Equal(f.Blocks[0].RawData(), b) {
				t.Fatalf("%d blocks, want the file as one block", len(f.Blocks))
			}
		})
	}
	// The well-known CID of the empty file under `ipfs add --cid-version=1 --raw-leaves`.
	if got, _ := ipfs.CID(ctx, nil); got != "bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku" {
		t.Fatalf("empty file: %s", got)
	}
}

func TestImportLayout(t *testing.T) {
	ctx := context.Background()
	t.Run("two chunks", func(t *testing.T) {
		f, err := ipfs.Import(ctx, randomBytes(256*KiB+1, 2))
		if err != nil {
			t.Fatal(err)
		}
		root := decodeRoot(t, f)
		if f.Root.Prefix().Version != 1 || f.Root.Type() != cid.DagProtobuf || f.Root.Prefix().MhType != mh.SHA2_256 {
			t.Fatalf("root %s: want CIDv1 dag-pb sha2-256", f.Root)
		}
		links := root.Links()
		if len(links) != 2 || links[0].Cid.Type() != cid.Raw || links[0].Size != 256*KiB || links[1].Size != 1 {
			t.Fatalf("links %+v: want raw leaves of 262144 and 1 bytes", links)
		}
	})
	t.Run("over 174 chunks", func(t *testing.T) {
		if testing.Short() {
			t.Skip("imports 44 MiB")
		}
		// 175 chunks need a second level: the root links one full node of 174 leaves and one of 1 leaf.
		f, err := ipfs.Import(ctx, randomBytes(175*256*KiB, 3))
		if err != nil {
			t.Fatal(err)
		}
		root := decodeRoot(t, f)
		if len(root.Links()) != 2 {
			t.Fatalf("root has %d links, want 2", len(root.Links()))
		}
		for _, blk := range f.Blocks {
			if blk.Cid().Equals(root.Links()[0].Cid) {
				n, err := merkledag.DecodeProtobuf(blk.RawData())
				if err != nil {
					t.Fatal(err)
				}
				if len(n.Links()) != ipfs.MaxLinks {
					t.Fatalf("first inner node has %d links, want %d", len(n.Links()), ipfs.MaxLinks)
				}
				return
			}
		}
		t.Fatal("first child of the root is not among the blocks")
	})
}

func decodeRoot(t *testing.T, f *ipfs.File) *merkledag.ProtoNode {
	t.Helper()
	last := f.Blocks[len(f.Blocks)-1]
	if !last.Cid().Equals(f.Root) {
		t.Fatalf("last block %s is not the root %s", last.Cid(), f.Root)
	}
	n, err := merkledag.DecodeProtobuf(last.RawData())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestEmbeddedRoundTrip(t *testing.T) {
	ctx := context.Background()
	e := openEmbedded(t, t.TempDir())
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			b := randomBytes(n, 4)
			c, err := e.Put(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := ipfs.CID(ctx, b); c != want {
				t.Fatalf("Put gave %s, Import gives %s", c, want)
			}
			got, err := e.Get(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, b) {
				t.Fatalf("Get returned %d bytes that differ from the %d put", len(got), len(b))
			}
			if ok, err := e.Pinned(ctx, c); err != nil || !ok {
				t.Fatalf("Pinned = %v, %v", ok, err)
			}
			again, err := e.Put(ctx, b)
			if err != nil || again != c {
				t.Fatalf("second Put: %s, %v; want %s", again, err, c)
			}
		})
	}
}

func TestEmbeddedPersistsAcrossReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := randomBytes(2*MiB+3, 5)
	e, err := ipfs.OpenEmbedded(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.Put(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openEmbedded(t, dir)
	got, err := e.Get(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b) {
		t.Fatal("bytes differ after reopening")
	}
	if ok, _ := e.Pinned(ctx, c); !ok {
		t.Fatal("pin lost after reopening")
	}
}

func TestEmbeddedDetectsCorruption(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name    string
		size    int
		corrupt func(b []byte) []byte
	}{
		{"single block, flipped byte", 1000, func(b []byte) []byte { b[10] ^= 1; return b }},
		{"single block, truncated", 1000, func(b []byte) []byte { return b[:len(b)-1] }},
		{"leaf of a 2 MiB file, flipped byte", 2 * MiB, func(b []byte) []byte { b[len(b)/2] ^= 0x80; return b }},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := openEmbedded(t, t.TempDir())
			b := randomBytes(tc.size, uint64(10+i))
			c, err := e.Put(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			f, _ := ipfs.Import(ctx, b)
			leaf := f.Blocks[0] // a leaf; for the single-block file also the root
			ipfs.SetStoredBlock(t, e, leaf.Cid(), tc.corrupt(bytes.Clone(leaf.RawData())))
			got, err := e.Get(ctx, c)
			if !errors.Is(err, ipfs.ErrCorrupt) {
				t.Fatalf("Get: %v, want ErrCorrupt", err)
			}
			if got != nil {
				t.Fatal("Get returned data with the error")
			}
			if code := seald.ErrorCode(err); code != seald.EINTERNAL {
				t.Fatalf("code %q, want internal", code)
			}
			if _, err := e.Block(ctx, leaf.Cid()); !errors.Is(err, ipfs.ErrCorrupt) {
				t.Fatalf("Block: %v, want ErrCorrupt", err)
			}
		})
	}
}

func TestEmbeddedMissingChildIsNotNotFound(t *testing.T) {
	ctx := context.Background()
	e := openEmbedded(t, t.TempDir())
	b := randomBytes(MiB, 20)
	c, err := e.Put(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := ipfs.Import(ctx, b)
	ipfs.SetStoredBlock(t, e, f.Blocks[1].Cid(), nil)
	_, err = e.Get(ctx, c)
	if err == nil || seald.ErrorCode(err) == seald.ENOTFOUND {
		t.Fatalf("Get of a DAG with a lost leaf: %v; want an internal error, not not-found", err)
	}
}

func TestEmbeddedUnknownAndMalformed(t *testing.T) {
	ctx := context.Background()
	e := openEmbedded(t, t.TempDir())
	unknown, _ := ipfs.CID(ctx, []byte("never stored"))
	for _, tc := range []struct {
		cid  string
		code seald.Code
	}{
		{unknown, seald.ENOTFOUND},
		{"bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi", seald.ENOTFOUND}, // dag-pb, not stored
		{"QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG", seald.ENOTFOUND},              // CIDv0, not stored
		{"", seald.EINVALID},
		{"not-a-cid", seald.EINVALID},
		{"bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyk", seald.EINVALID}, // one character short
	} {
		_, err := e.Get(ctx, tc.cid)
		if got := seald.ErrorCode(err); got != tc.code {
			t.Errorf("Get(%q): %v (code %q), want code %q", tc.cid, err, got, tc.code)
		}
	}
	if _, err := e.Pinned(ctx, "nope"); seald.ErrorCode(err) != seald.EINVALID {
		t.Errorf("Pinned(nope): %v", err)
	}
	if ok, err := e.Pinned(ctx, unknown); ok || err != nil {
		t.Errorf("Pinned(unknown) = %v, %v", ok, err)
	}
}

func TestEmbeddedConcurrentPuts(t *testing.T) {
	ctx := context.Background()
	e := openEmbedded(t, t.TempDir())
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			// Two goroutines per content: the same blocks are written concurrently.
			b := randomBytes(300*KiB, uint64(30+i/2))
			c, err := e.Put(ctx, b)
			if err != nil {
				errs <- err
				return
			}
			got, err := e.Get(ctx, c)
			if err != nil {
				errs <- err
				return
			}
			if !bytes.Equal(got, b) {
				errs <- fmt.Errorf("%s: bytes differ", c)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func BenchmarkEmbeddedPut(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10_000, MiB} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			e := openEmbedded(b, b.TempDir())
			data := randomBytes(n, 40)
			b.SetBytes(int64(n))
			i := 0
			for b.Loop() {
				// Fresh bytes in every chunk each time, so every Put writes all its blocks instead of finding
				// them stored.
				for j := 0; j < n; j += ipfs.ChunkSize {
					data[j], data[j+1], data[j+2], data[j+3] = byte(i), byte(i>>8), byte(i>>16), byte(i>>24)
				}
				i++
				if _, err := e.Put(ctx, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEmbeddedPutParallel puts 10 KB files (an envelope's size) from 64 goroutines, as the pipeline's
// store workers do, with group puts and, in the same run, with every Put syncing its own files.
func BenchmarkEmbeddedPutParallel(b *testing.B) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		opts []ipfs.EmbeddedOption
	}{{"group", nil}, {"single", []ipfs.EmbeddedOption{ipfs.WithoutGroupPut()}}} {
		b.Run(c.name, func(b *testing.B) {
			e, err := ipfs.OpenEmbedded(b.TempDir(), c.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			var n atomic.Int64
			var wg sync.WaitGroup
			b.SetBytes(10_000)
			b.ResetTimer()
			start := time.Now()
			for range 64 {
				wg.Go(func() {
					for {
						i := n.Add(1)
						if i > int64(b.N) {
							return
						}
						data := randomBytes(10_000, uint64(i))
						binary.LittleEndian.PutUint64(data, uint64(i)) // unique beyond the seed's 16 bits
						if _, err := e.Put(ctx, data); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "puts/s")
		})
	}
}

// Puts made at once (written in groups) are all readable, pinned and intact after the store is closed and
// opened again, including files put twice at the same moment and files of several blocks.
func TestEmbeddedGroupPutsDurable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := ipfs.OpenEmbedded(dir)
	if err != nil {
		t.Fatal(err)
	}
	const n = 60
	cids := make([]string, n)
	data := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		size := 10_000
		if i%10 == 0 {
			size = 300 * KiB // two blocks and a root
		}
		data[i] = randomBytes(size, uint64(100+i/2)) // pairs of identical files
		wg.Go(func() {
			c, err := e.Put(ctx, data[i])
			if err != nil {
				t.Errorf("Put %d: %v", i, err)
			}
			cids[i] = c
		})
	}
	wg.Wait()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openEmbedded(t, dir)
	for i, c := range cids {
		got, err := e.Get(ctx, c)
		if err != nil || !bytes.Equal(got, data[i]) {
			t.Errorf("file %d (%s) after reopening: %v, equal %v", i, c, err, bytes.Equal(got, data[i]))
		}
		if ok, err := e.Pinned(ctx, c); !ok || err != nil {
			t.Errorf("file %d (%s) not pinned after reopening: %v", i, c, err)
		}
	}
	if _, err := e.Put(canceled(), []byte("never")); err == nil {
		t.Error("Put with a cancelled context succeeded")
	}
}

func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}
