package ipfs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"
	carv2 "github.com/ipld/go-car/v2"

	"seald.dev/seald"
	"seald.dev/seald/ipfs"
)

// gatewayServer mounts the gateway the way the HTTP API does, behind a Go 1.22 pattern.
func gatewayServer(t *testing.T, src ipfs.Source) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("GET /ipfs/{cid}", ipfs.NewGateway(src))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// blockMap is a Source over blocks received from a CAR, checking each like the stores do.
type blockMap map[string][]byte

func (m blockMap) Block(_ context.Context, c cid.Cid) ([]byte, error) {
	b, ok := m[c.KeyString()]
	if !ok {
		return nil, seald.Errorf(seald.ENOTFOUND, "no %s", c)
	}
	return b, nil
}

// checkCAR parses a served CAR, checks its root and every block's hash, rebuilds the file from the blocks
// alone and checks that importing the rebuilt bytes gives the CID again.
func checkCAR(t *testing.T, body []byte, root string, want []byte) {
	t.Helper()
	br, err := carv2.NewBlockReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if br.Version != 1 || len(br.Roots) != 1 || br.Roots[0].String() != root {
		t.Fatalf("CAR v%d roots %v, want v1 with root %s", br.Version, br.Roots, root)
	}
	blocks := blockMap{}
	for i := 0; ; i++ {
		blk, err := br.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && blk.Cid().String() != root {
			t.Fatalf("first block %s, want the root first (order=dfs)", blk.Cid())
		}
		sum, err := blk.Cid().Prefix().Sum(blk.RawData())
		if err != nil || !sum.Equals(blk.Cid()) {
			t.Fatalf("block %s does not hash to its CID", blk.Cid())
		}
		if _, dup := blocks[blk.Cid().KeyString()]; dup {
			t.Fatalf("block %s sent twice (dups=n)", blk.Cid())
		}
		blocks[blk.Cid().KeyString()] = blk.RawData()
	}
	c, _ := cid.Decode(root)
	file, err := ipfs.ReadFile(context.Background(), blocks, c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, want) {
		t.Fatal("the file rebuilt from the CAR differs")
	}
	if again, _ := ipfs.CID(context.Background(), file); again != root {
		t.Fatalf("the rebuilt file imports as %s, want %s", again, root)
	}
}

func TestGatewayServesFileRawAndCAR(t *testing.T) {
	ctx := context.Background()
	e := openEmbedded(t, t.TempDir())
	srv := gatewayServer(t, e)
	for _, n := range []int{0, 1000, 256*1024 + 1, 2 * MiB} {
		b := randomBytes(n, 50)
		root, err := e.Put(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := cid.Decode(root)
		url := srv.URL + "/ipfs/" + root
		t.Run(strings.Join([]string{root[:12], "file"}, "/"), func(t *testing.T) {
			resp, body := get(t, url)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/octet-stream" {
				t.Fatalf("%s %s", resp.Status, resp.Header.Get("Content-Type"))
			}
			if resp.Header.Get("Etag") != `"`+root+`"` || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
				t.Fatalf("Etag %s, Cache-Control %s", resp.Header.Get("Etag"), resp.Header.Get("Cache-Control"))
			}
			if !bytes.Equal(body, b) {
				t.Fatal("body differs from the stored bytes")
			}
			if again, _ := ipfs.CID(ctx, body); again != root {
				t.Fatalf("served bytes import as %s", again)
			}
		})
		for name, hdr := range map[string][]string{
			"raw by format": {}, "raw by Accept": {"Accept", "application/vnd.ipld.raw"},
		} {
			t.Run(root[:12]+"/"+name, func(t *testing.T) {
				u := url
				if len(hdr) == 0 {
					u += "?format=raw"
				}
				resp, body := get(t, u, hdr...)
				if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/vnd.ipld.raw" {
					t.Fatalf("%s %s", resp.Status, resp.Header.Get("Content-Type"))
				}
				if sum, _ := c.Prefix().Sum(body); !sum.Equals(c) {
					t.Fatal("the raw block does not hash to the CID")
				}
			})
		}
		for name, hdr := range map[string][]string{
			"car by format": {}, "car by Accept": {"Accept", "application/vnd.ipld.car; version=1"},
		} {
			t.Run(root[:12]+"/"+name, func(t *testing.T) {
				u := url
				if len(hdr) == 0 {
					u += "?format=car"
				}
				resp, body := get(t, u, hdr...)
				if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/vnd.ipld.car") {
					t.Fatalf("%s %s", resp.Status, resp.Header.Get("Content-Type"))
				}
				checkCAR(t, body, root, b)
			})
		}
	}
}

func TestGatewayCARSendsRepeatedBlocksOnce(t *testing.T) {
	e := openEmbedded(t, t.TempDir())
	srv := gatewayServer(t, e)
	zeros := make([]byte, 2*MiB) // eight identical leaves
	root, err := e.Put(context.Background(), zeros)
	if err != nil {
		t.Fatal(err)
	}
	_, body := get(t, srv.URL+"/ipfs/"+root+"?format=car")
	checkCAR(t, body, root, zeros)
}

// errorBody decodes the JSON error envelope and checks its shape.
func errorBody(t *testing.T, resp *http.Response, body []byte, status int) string {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status %s, want %d; body %s", resp.Status, status, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Fatalf("Content-Type %q", ct)
	}
	var env map[string]any
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	msg, _ := env["error"].(string)
	if env["success"] != false || env["data"] != nil || msg == "" || len(env) != 3 {
		t.Fatalf("envelope %s", body)
	}
	return msg
}

func TestGatewayErrors(t *testing.T) {
	ctx := context.Background()
	e := openEmbedded(t, t.TempDir())
	srv := gatewayServer(t, e)
	unknown, _ := ipfs.CID(ctx, []byte("never stored"))
	stored, err := e.Put(ctx, []byte("stored"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/ipfs/" + unknown, 404},
		{"/ipfs/" + unknown + "?format=car", 404},
		{"/ipfs/" + unknown + "?format=raw", 404},
		{"/ipfs/not-a-cid", 400},
		{"/ipfs/bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyk", 400},
		{"/ipfs/" + stored + "?format=tar", 400},
	} {
		resp, body := get(t, srv.URL+tc.path)
		errorBody(t, resp, body, tc.status)
	}
	resp, body := get(t, srv.URL+"/ipfs/"+stored, "Accept", "application/vnd.ipld.car; version=2")
	errorBody(t, resp, body, 400)

	// A block that rots on disk is a 500 with no detail, never its bytes.
	storedCID, _ := cid.Decode(stored)
	ipfs.SetStoredBlock(t, e, storedCID, []byte("rotted"))
	for _, q := range []string{"", "?format=raw", "?format=car"} {
		resp, body := get(t, srv.URL+"/ipfs/"+stored+q)
		if msg := errorBody(t, resp, body, 500); msg != "internal error" {
			t.Fatalf("message %q", msg)
		}
	}
}

func TestGatewayHTTPSemantics(t *testing.T) {
	ctx := context.Background()
	e := openEmbedded(t, t.TempDir())
	srv := gatewayServer(t, e)
	b := randomBytes(300*1024, 51)
	root, err := e.Put(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	url := srv.URL + "/ipfs/" + root
	t.Run("If-None-Match", func(t *testing.T) {
		resp, body := get(t, url, "If-None-Match", `"`+root+`"`)
		if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Fatalf("%s with %d bytes", resp.Status, len(body))
		}
	})
	t.Run("Range", func(t *testing.T) {
		resp, body := get(t, url, "Range", "bytes=262140-262150")
		if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, b[262140:262151]) {
			t.Fatalf("%s: %x", resp.Status, body)
		}
	})
	t.Run("HEAD", func(t *testing.T) {
		resp, err := http.Head(url + "?format=car")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.ContentLength <= int64(len(b)) {
			t.Fatalf("%s, length %d", resp.Status, resp.ContentLength)
		}
	})
	t.Run("custom error writer", func(t *testing.T) {
		gw := ipfs.NewGateway(e)
		var seen error
		gw.WriteError = func(w http.ResponseWriter, r *http.Request, err error) {
			seen = err
			w.WriteHeader(http.StatusTeapot)
		}
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ipfs/nope", nil))
		if rec.Code != http.StatusTeapot || seald.ErrorCode(seen) != seald.EINVALID {
			t.Fatalf("%d %v", rec.Code, seen)
		}
	})
	t.Run("paths inside a CID", func(t *testing.T) {
		rec := httptest.NewRecorder()
		ipfs.NewGateway(e).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ipfs/"+root+"/a.txt", nil))
		if rec.Code != http.StatusNotFound {
			t.Fatalf("%d", rec.Code)
		}
	})
}
