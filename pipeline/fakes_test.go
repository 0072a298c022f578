package pipeline_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"seald.dev/seald"
)

// The fakes below exist to inject faults into the pipeline; the real parts are tested in their packages.

// faults makes the next n calls of an operation fail with err.
type faults struct {
	mu  sync.Mutex
	n   map[string]int
	err map[string]error
}

func (f *faults) set(op string, n int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == nil {
		f.n, f.err = map[string]int{}, map[string]error{}
	}
	f.n[op], f.err[op] = n, err
}

func (f *faults) take(op string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n[op] > 0 {
		f.n[op]--
		return f.err[op]
	}
	return nil
}

type fakeBlobs struct {
	faults
	mu   sync.Mutex
	data map[string][]byte
	puts atomic.Int64
	// beforePut, when set, runs at the start of each Put (a slow store).
	beforePut func()
}

func (b *fakeBlobs) Put(ctx context.Context, p []byte) (string, error) {
	if b.beforePut != nil {
		b.beforePut()
	}
	if err := b.take("put"); err != nil {
		return "", err
	}
	b.puts.Add(1)
	sum := sha256.Sum256(p)
	cid := "bafkfake" + hex.EncodeToString(sum[:8])
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.data == nil {
		b.data = map[string][]byte{}
	}
	b.data[cid] = append([]byte(nil), p...)
	return cid, nil
}

func (b *fakeBlobs) Delete(ctx context.Context, cid string) error {
	if err := b.take("delete"); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.data, cid)
	return nil
}

// Pinned tells whether the fake keeps cid, as the embedded store's pin does.
func (b *fakeBlobs) Pinned(ctx context.Context, cid string) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.data[cid]
	return ok, nil
}

func (b *fakeBlobs) Get(ctx context.Context, cid string) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if d, ok := b.data[cid]; ok {
		return d, nil
	}
	return nil, seald.Errorf(seald.ENOTFOUND, "no %s", cid)
}

type fakeMailer struct {
	faults
	mu     sync.Mutex
	sent   []*seald.Mail
	erased []string // references EraseMail was called for, as an outbox keeps messages
	// kept are the references whose messages the fake keeps, as an outbox does: Send keeps one, EraseMail
	// takes it out.
	kept map[string]bool
	// beforeKeep, when set, runs in Send before the message is kept (a send racing an erasure).
	beforeKeep func(*seald.Mail)
}

func (m *fakeMailer) EraseMail(ctx context.Context, reference string) error {
	if err := m.take("erase"); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.erased = append(m.erased, reference)
	delete(m.kept, reference)
	return nil
}

func (m *fakeMailer) keeps(ref string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.kept[ref]
}

func (m *fakeMailer) erasedOf(ref string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, r := range m.erased {
		if r == ref {
			n++
		}
	}
	return n
}

func (m *fakeMailer) Send(ctx context.Context, mail *seald.Mail) (string, error) {
	if err := m.take("send"); err != nil {
		return "", err
	}
	if m.beforeKeep != nil {
		m.beforeKeep(mail)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, mail)
	if m.kept == nil {
		m.kept = map[string]bool{}
	}
	m.kept[mail.Reference] = true
	return "<" + mail.Reference + "@test>", nil
}

func (m *fakeMailer) count(ref string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, s := range m.sent {
		if s.Reference == ref {
			n++
		}
	}
	return n
}

// fakeChain mines every sent transaction at once, like an instant-sealing dev chain, and refuses a batch
// whose first token id is not the next one, as the real contract does.
type fakeChain struct {
	faults
	mu       sync.Mutex
	next     uint64
	pending  map[string][]byte // tx hash → raw
	txs      map[string]fakeTx
	mined    map[string]seald.Receipt
	block    uint64
	revoked  map[uint64]int
	batches  int
	nonce    uint64
	rejected int
	// holdRevokes keeps sent revocations out of blocks, as a node does with a fee too low to be included.
	holdRevokes bool
	// holdBatches keeps sent batch transactions in the pool (held) until releaseBatches mines them.
	holdBatches bool
	held        []string
}

func (c *fakeChain) setHoldBatches() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.holdBatches = true
}

// releaseBatches stops holding batches and mines the held ones, as a block would.
func (c *fakeChain) releaseBatches() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.holdBatches = false
	for _, h := range c.held {
		c.mine(h)
	}
	c.held = nil
}

// built is how many batch transactions were signed (replacements included).
func (c *fakeChain) built() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, tx := range c.txs {
		if tx.revoke == 0 {
			n++
		}
	}
	return n
}

func (c *fakeChain) setHoldRevokes(hold bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.holdRevokes = hold
}

type fakeTx struct {
	first  uint64
	count  int
	nonce  uint64
	revoke uint64 // the token a revocation revokes; 0 for a batch
}

func newFakeChain() *fakeChain {
	return &fakeChain{next: 1, pending: map[string][]byte{}, txs: map[string]fakeTx{}, mined: map[string]seald.Receipt{}, revoked: map[uint64]int{}}
}

func (c *fakeChain) Chain() seald.Chain {
	return seald.Chain{Network: seald.NetworkPolygon, ChainID: "1337", Contract: "0x0000000000000000000000000000000000000001"}
}

func (c *fakeChain) NextTokenID(ctx context.Context) (uint64, error) {
	if err := c.take("rpc"); err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.next, nil
}

func (c *fakeChain) BuildBatch(ctx context.Context, req seald.BatchRequest) (*seald.BatchTx, error) {
	if err := c.take("rpc"); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	nonce := c.nonce
	if req.Nonce != nil {
		nonce = *req.Nonce
	} else {
		c.nonce++
	}
	tx := &seald.BatchTx{Root: fmt.Sprintf("0xroot%d", req.FirstTokenID), Nonce: nonce}
	for i := range req.Hashes {
		tx.Leaves = append(tx.Leaves, fmt.Sprintf("0xleaf%d", req.FirstTokenID+uint64(i)))
		tx.Proofs = append(tx.Proofs, []string{"0xsibling"})
	}
	tx.TxHash = fmt.Sprintf("0xtx-%d-%d-%d", req.FirstTokenID, nonce, req.Attempt)
	tx.RawTx = []byte(tx.TxHash)
	c.txs[tx.TxHash] = fakeTx{first: req.FirstTokenID, count: len(req.Hashes), nonce: nonce}
	return tx, nil
}

func (c *fakeChain) Send(ctx context.Context, raw []byte) error {
	if err := c.take("rpc"); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	h := string(raw)
	if _, ok := c.mined[h]; ok {
		return nil
	}
	tx := c.txs[h]
	if tx.revoke != 0 {
		if c.holdRevokes {
			return nil
		}
		c.revoked[tx.revoke]++
		c.block++
		c.mined[h] = seald.Receipt{TxHash: h, BlockNumber: c.block, BlockHash: fmt.Sprintf("0xblock%d", c.block)}
		return nil
	}
	if c.holdBatches {
		if !slices.Contains(c.held, h) {
			c.held = append(c.held, h)
		}
		return nil
	}
	c.mine(h)
	return nil
}

// mine includes the batch transaction h, or rejects it as the contract would.
func (c *fakeChain) mine(h string) {
	tx := c.txs[h]
	if _, ok := c.mined[h]; ok {
		return
	}
	if tx.first != c.next {
		c.rejected++ // the contract would revert; a duplicate never mints
		return
	}
	c.next += uint64(tx.count)
	c.block++
	c.batches++
	c.mined[h] = seald.Receipt{TxHash: h, BlockNumber: c.block, BlockHash: fmt.Sprintf("0xblock%d", c.block)}
}

func (c *fakeChain) Receipt(ctx context.Context, txHash string) (*seald.Receipt, error) {
	if err := c.take("rpc"); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.mined[txHash]; ok {
		return &r, nil
	}
	return nil, nil
}

// Included is Receipt without a notion of finality: the fake's blocks are final at once.
func (c *fakeChain) Included(ctx context.Context, txHash string) (*seald.Receipt, error) {
	return c.Receipt(ctx, txHash)
}

func (c *fakeChain) BuildRevoke(ctx context.Context, req seald.RevokeRequest) (*seald.SignedTx, error) {
	if err := c.take("rpc"); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.TokenID >= c.next {
		// SealRegistry.revoke reverts for a token that is not minted, and so the gas estimate fails; so
		// does the fake.
		return nil, seald.Permanent(fmt.Errorf("execution reverted: token %d does not exist", req.TokenID))
	}
	nonce := c.nonce
	if req.Nonce != nil {
		nonce = *req.Nonce
	} else {
		c.nonce++
	}
	h := fmt.Sprintf("0xrevoke-%d-%d-%d", req.TokenID, nonce, req.Attempt)
	c.txs[h] = fakeTx{revoke: req.TokenID, nonce: nonce}
	return &seald.SignedTx{Nonce: nonce, TxHash: h, RawTx: []byte(h)}, nil
}

func (c *fakeChain) IsRevoked(ctx context.Context, id uint64) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.revoked[id] > 0, nil
}

var errDown = errors.New("connection refused")

// forget drops the revocation of a token from the fake chain, as a chain restored from an older backup would.
func (c *fakeChain) forget(id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.revoked, id)
}

func (c *fakeChain) minedBatches() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.batches
}

func (c *fakeChain) revocations(id uint64) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.revoked[id]
}
