package ipfs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"

	"github.com/ipfs/go-cid"

	"seald.dev/seald"
)

// maxBody caps what seald reads from a node in one answer: far above any stored envelope, far below memory.
const maxBody = 256 << 20

// Kubo is the production BlobStore: a Kubo node's RPC API (http://host:5001), or an IPFS Cluster proxy endpoint
// in front of one or more nodes.
//
// It speaks the RPC API with net/http and mime/multipart instead of Kubo's own client/rpc package, which would
// pull the whole of Kubo into seald's module for four endpoints.
//
// Put sends every import parameter explicitly (CIDv1, raw leaves, SHA-256, size-262144 chunks, balanced
// layout, 174 links, no inlining) so that the node's Import.* settings cannot change the CID, and then checks
// the node's answer against the CID seald computes itself: a node that imports differently is a permanent
// error, never a CID that seald's own gateway would disagree with. Get reads back with cat and imports the
// bytes again locally, so a node cannot hand back bytes that do not match the CID.
//
// Through an IPFS Cluster proxy (default port 9095; a base URL with a path prefix works, e.g. behind a reverse
// proxy) the same calls apply, with these differences: /api/v0/add is handled by Cluster's own importer,
// which takes cid-version, raw-leaves, chunker, hash and trickle but ignores max-file-links and inline (its
// fixed 174 links match ours, and the CID check above catches any drift); it pins through Cluster, replicated
// as the cluster is configured; and its answer stream holds one JSON line per added file or directory (here
// exactly one, since one file without a wrapping directory is sent), with errors reported in the
// X-Stream-Error trailer rather than the status. cat and block/get are forwarded to the node behind.
//
// Faults that retrying may mend (connection refused, timeouts, 5xx, 408, 429) are plain errors with code
// EUNAVAILABLE, so the pipeline retries them; other 4xx answers are wrapped with seald.Permanent.
type Kubo struct {
	base   string // scheme://host[:port][/prefix], without a trailing slash
	client *http.Client
}

var (
	_ seald.BlobStore = (*Kubo)(nil)
	_ Source          = (*Kubo)(nil)
)

// NewKubo returns a store over the RPC API at baseURL (e.g. "http://127.0.0.1:5001"). A nil client means
// http.DefaultClient; request lifetimes come from the contexts passed to each call.
func NewKubo(baseURL string, client *http.Client) (*Kubo, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		return nil, seald.Errorf(seald.EINVALID, "IPFS API URL %q: want http(s)://host:port[/prefix]", baseURL)
	}
	if client == nil {
		client = http.DefaultClient
	}
	return &Kubo{base: strings.TrimRight(u.String(), "/"), client: client}, nil
}

// addParams are the import parameters Put sends; see Kubo's doc comment.
var addParams = url.Values{
	"cid-version":         {"1"},
	"raw-leaves":          {"true"},
	"hash":                {"sha2-256"},
	"chunker":             {"size-" + strconv.Itoa(ChunkSize)},
	"trickle":             {"false"},
	"max-file-links":      {strconv.Itoa(MaxLinks)},
	"inline":              {"false"},
	"pin":                 {"true"},
	"wrap-with-directory": {"false"},
	"progress":            {"false"},
	"stream-channels":     {"true"},
}

// Put adds b to the node with the fixed import parameters, pins it, and returns its CID after checking it
// against the CID computed locally.
func (k *Kubo) Put(ctx context.Context, b []byte) (string, error) {
	want, err := Import(ctx, b)
	if err != nil {
		return "", err
	}
	got, err := k.add(ctx, b)
	if err != nil {
		return "", err
	}
	if c, err := cid.Decode(got); err != nil || !c.Equals(want.Root) {
		return "", seald.Permanent(fmt.Errorf("ipfs: the node stored the bytes as %q, seald computes %s: "+
			"its importer does not honour the fixed parameters", got, want.Root))
	}
	root := want.Root.String()
	// add already pinned (pin=true); pinning again is idempotent on Kubo and makes sure through a proxy that
	// might have dropped the parameter.
	if err := k.Pin(ctx, root); err != nil {
		return "", err
	}
	return root, nil
}

func (k *Kubo) add(ctx context.Context, b []byte) (string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	hdr := textproto.MIMEHeader{}
	hdr.Set("Content-Disposition", `form-data; name="file"; filename="envelope"`)
	hdr.Set("Content-Type", "application/octet-stream")
	part, err := mw.CreatePart(hdr)
	if err != nil {
		return "", fmt.Errorf("ipfs: add: %w", err)
	}
	part.Write(b)
	if err := mw.Close(); err != nil {
		return "", fmt.Errorf("ipfs: add: %w", err)
	}
	resp, err := k.call(ctx, "add", addParams, mw.FormDataContentType(), &body)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	// One JSON object per line: Kubo writes one per file, Cluster one per file or directory; a progress line
	// carries Bytes and no Hash. The last line with a Hash is the root of what was sent.
	var last string
	sc := bufio.NewScanner(io.LimitReader(resp.Body, maxBody))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var ev struct{ Hash, Message, Type string }
		if err := json.Unmarshal(line, &ev); err != nil {
			return "", unavailable("add", fmt.Errorf("unreadable answer line %q: %w", clip(line), err))
		}
		if ev.Type == "error" {
			return "", unavailable("add", errors.New(ev.Message))
		}
		if ev.Hash != "" {
			last = ev.Hash
		}
	}
	if err := sc.Err(); err != nil {
		return "", unavailable("add", err)
	}
	// Both Kubo and Cluster stream with status 200 and report a late failure in this trailer.
	if msg := resp.Trailer.Get("X-Stream-Error"); msg != "" {
		return "", unavailable("add", errors.New(msg))
	}
	if last == "" {
		return "", unavailable("add", errors.New("the answer named no CID"))
	}
	return last, nil
}

// Pin pins cidStr recursively on the node (or in the cluster), so its garbage collector keeps the DAG.
func (k *Kubo) Pin(ctx context.Context, cidStr string) error {
	c, err := ParseCID(cidStr)
	if err != nil {
		return err
	}
	resp, err := k.call(ctx, "pin/add", url.Values{"arg": {c.String()}, "recursive": {"true"}}, "", nil)
	if err != nil {
		return err
	}
	return drainStream("pin/add", resp)
}

// drainStream reads a streamed answer of op to its end and reports the error Kubo announces in its
// X-Stream-Error trailer, if any. It closes the body.
func drainStream(op string, resp *http.Response) error {
	defer resp.Body.Close()
	_, err := io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
	if err == nil {
		if msg := resp.Trailer.Get("X-Stream-Error"); msg != "" {
			err = errors.New(msg)
		}
	}
	if err != nil {
		return unavailable(op, err)
	}
	return nil
}

// Get reads the file behind cidStr with cat and returns it only if importing it again gives the same CID.
// It asks the node to stay offline, so an unknown CID is ENOTFOUND at once instead of a search of the network.
func (k *Kubo) Get(ctx context.Context, cidStr string) ([]byte, error) {
	c, err := ParseCID(cidStr)
	if err != nil {
		return nil, err
	}
	resp, err := k.call(ctx, "cat", url.Values{"arg": {c.String()}, "offline": {"true"}}, "", nil)
	if err != nil {
		return nil, notFoundFor(c, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err == nil {
		if msg := resp.Trailer.Get("X-Stream-Error"); msg != "" {
			err = errors.New(msg)
		}
	}
	if err != nil {
		return nil, unavailable("cat", err)
	}
	if err := matches(ctx, c, b); err != nil {
		return nil, err
	}
	return b, nil
}

// matches checks that b, imported with the fixed parameters, gives c. A CID made with other parameters (a
// CIDv0, another chunker) cannot be checked this way and is refused rather than served unchecked.
func matches(ctx context.Context, c cid.Cid, b []byte) error {
	f, err := Import(ctx, b)
	if err != nil {
		return err
	}
	if !f.Root.Equals(c) {
		return fmt.Errorf("%w: the node's bytes for %s import as %s", ErrCorrupt, c, f.Root)
	}
	return nil
}

// Block returns one block from the node (block/get), checked against c, so that seald's gateway can serve
// raw blocks and CARs of what lives on the node.
func (k *Kubo) Block(ctx context.Context, c cid.Cid) ([]byte, error) {
	resp, err := k.call(ctx, "block/get", url.Values{"arg": {c.String()}, "offline": {"true"}}, "", nil)
	if err != nil {
		return nil, notFoundFor(c, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, unavailable("block/get", err)
	}
	if err := verify(c, b); err != nil {
		return nil, err
	}
	return b, nil
}

// apiError is a non-200 answer of the RPC API.
type apiError struct {
	Status  int
	Message string
}

func (e *apiError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message) }

// call POSTs to /api/v0/{cmd} (the RPC API takes POST only) and returns the response of a 200 answer.
func (k *Kubo) call(ctx context.Context, cmd string, q url.Values, contentType string, body io.Reader) (*http.Response, error) {
	u := k.base + "/api/v0/" + cmd + "?" + q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, body)
	if err != nil {
		return nil, seald.Permanent(fmt.Errorf("ipfs: %s: %w", cmd, err))
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := k.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("ipfs: %s: %w", cmd, ctx.Err())
		}
		return nil, unavailable(cmd, err)
	}
	if resp.StatusCode == http.StatusOK {
		return resp, nil
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	msg := strings.TrimSpace(string(raw))
	var ae struct{ Message string }
	if json.Unmarshal(raw, &ae) == nil && ae.Message != "" {
		msg = ae.Message
	}
	apiErr := &apiError{Status: resp.StatusCode, Message: msg}
	switch {
	case resp.StatusCode >= 500, resp.StatusCode == http.StatusRequestTimeout,
		resp.StatusCode == http.StatusTooManyRequests:
		return nil, unavailable(cmd, apiErr)
	default:
		return nil, seald.Permanent(fmt.Errorf("ipfs: %s: %w", cmd, apiErr))
	}
}

// unavailable marks a fault of the node or of the way to it: retried by the pipeline, 503 on the API.
func unavailable(cmd string, err error) error {
	return &seald.Error{Code: seald.EUNAVAILABLE, Op: "ipfs: " + cmd, Message: "IPFS is not available", Err: err}
}

// notFoundFor turns the node's answer for a block it does not hold into ENOTFOUND. The RPC API has no status
// for that: offline, Kubo answers 500 with a message saying the block was not found locally.
func notFoundFor(c cid.Cid, err error) error {
	var ae *apiError
	if errors.As(err, &ae) && ae.Status == http.StatusInternalServerError {
		m := strings.ToLower(ae.Message)
		if strings.Contains(m, "not found") || strings.Contains(m, "could not find") {
			return notFound(c)
		}
	}
	return err
}

// clip shortens a node's answer for an error message.
func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}
