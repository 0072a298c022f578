package ipfs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"seald.dev/seald"
	"seald.dev/seald/ipfs"
	"seald.dev/seald/ipfs/kubotest"
)

func newKubo(t *testing.T, baseURL string) *ipfs.Kubo {
	t.Helper()
	k, err := ipfs.NewKubo(baseURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// cliAdd adds b with the ipfs command line as a user would, and returns the CID it prints.
func cliAdd(t *testing.T, d *kubotest.Daemon, b []byte, flags ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := d.Run(append(append([]string{"add", "-Q"}, flags...), p)...)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestKuboParity is the CID parity of the embedded importer, Kubo.Put and `ipfs add --cid-version=1
// --raw-leaves` on a real daemon, with reads back through Kubo.Get and the pin checked on the node.
func TestKuboParity(t *testing.T) {
	d := kubotest.Start(t)
	ctx := context.Background()
	k := newKubo(t, d.APIURL)
	e := openEmbedded(t, t.TempDir())
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			b := randomBytes(n, 60)
			embedded, err := e.Put(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			kubo, err := k.Put(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			if kubo != embedded {
				t.Fatalf("Kubo.Put %s, Embedded.Put %s", kubo, embedded)
			}
			if cli := cliAdd(t, d, b, "--cid-version=1", "--raw-leaves"); cli != embedded {
				t.Fatalf("ipfs add %s, Embedded.Put %s", cli, embedded)
			}
			got, err := k.Get(ctx, kubo)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, b) {
				t.Fatal("Kubo.Get returned other bytes")
			}
			if out, err := d.Run("pin", "ls", "--type=recursive", kubo); err != nil || !strings.Contains(string(out), kubo) {
				t.Fatalf("not pinned on the node: %s %v", out, err)
			}
		})
	}
	t.Run("over 174 chunks", func(t *testing.T) {
		if testing.Short() {
			t.Skip("adds 44 MiB")
		}
		b := randomBytes(175*256*KiB+1, 61)
		want, _ := ipfs.CID(ctx, b)
		if got, err := k.Put(ctx, b); err != nil || got != want {
			t.Fatalf("Kubo.Put %s, %v; Import gives %s", got, err, want)
		}
	})
}

// TestKuboIgnoresNodeSettings gives the node import settings unlike seald's and checks that Put still gives
// the fixed-parameter CID, while a plain `ipfs add` on that node does not.
func TestKuboIgnoresNodeSettings(t *testing.T) {
	d := kubotest.Start(t,
		kubotest.Config("Import.CidVersion", "0"),
		kubotest.Config("Import.UnixFSRawLeaves", "false"),
		kubotest.Config("Import.UnixFSChunker", `"size-1048576"`),
		kubotest.Config("Import.UnixFSFileMaxLinks", "3"),
		kubotest.Config("Import.UnixFSDAGLayout", `"trickle"`),
	)
	ctx := context.Background()
	k := newKubo(t, d.APIURL)
	b := randomBytes(5*MiB, 62)
	want, _ := ipfs.CID(ctx, b)
	got, err := k.Put(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("Kubo.Put %s, want %s", got, want)
	}
	if plain := cliAdd(t, d, b); plain == want {
		t.Fatalf("a plain ipfs add also gives %s: the node's settings did not take effect, the test proves nothing", plain)
	}
}

func TestKuboNotFoundAndMalformed(t *testing.T) {
	d := kubotest.Start(t)
	ctx := context.Background()
	k := newKubo(t, d.APIURL)
	unknown, _ := ipfs.CID(ctx, []byte("never stored on the node"))
	_, err := k.Get(ctx, unknown)
	if seald.ErrorCode(err) != seald.ENOTFOUND {
		t.Fatalf("Get(unknown): %v", err)
	}
	t.Logf("Get(unknown): %v", err)
	if _, err := k.Get(ctx, "not-a-cid"); seald.ErrorCode(err) != seald.EINVALID {
		t.Fatalf("Get(not-a-cid): %v", err)
	}
	srv := gatewayServer(t, k)
	resp, body := get(t, srv.URL+"/ipfs/"+unknown+"?format=raw")
	errorBody(t, resp, body, 404)
}

// TestKuboPinned is what the start-up sweep asks of Kubo: a file Put pins is pinned, Delete unpins it (the
// blocks stay until the node's garbage collector runs), a CID the node never saw is not pinned, and pinning it
// again by hand on the node shows again.
func TestKuboPinned(t *testing.T) {
	d := kubotest.Start(t)
	ctx := context.Background()
	k := newKubo(t, d.APIURL)
	c, err := k.Put(ctx, []byte("an envelope the sweep asks about"))
	if err != nil {
		t.Fatal(err)
	}
	pinned := func(want bool) {
		t.Helper()
		if got, err := k.Pinned(ctx, c); err != nil || got != want {
			t.Fatalf("Pinned(%s) = %v, %v; want %v", c, got, err, want)
		}
	}
	pinned(true)
	if err := k.Delete(ctx, c); err != nil {
		t.Fatal(err)
	}
	pinned(false)
	if out, err := d.Run("pin", "add", c); err != nil {
		t.Fatalf("ipfs pin add: %v %s", err, out)
	}
	pinned(true)
	unknown, _ := ipfs.CID(ctx, []byte("never stored on the node"))
	if got, err := k.Pinned(ctx, unknown); err != nil || got {
		t.Errorf("Pinned(unknown) = %v, %v", got, err)
	}
	if _, err := k.Pinned(ctx, "not-a-cid"); seald.ErrorCode(err) != seald.EINVALID {
		t.Errorf("Pinned(not-a-cid): %v", err)
	}
}

// TestKuboOutage stops the daemon under the store and brings it back: the failure must be one the pipeline
// retries, and the retry must succeed.
func TestKuboOutage(t *testing.T) {
	d := kubotest.Start(t)
	ctx := context.Background()
	k := newKubo(t, d.APIURL)
	b := randomBytes(300*KiB, 63)
	d.Stop()
	_, err := k.Put(ctx, b)
	if err == nil {
		t.Fatal("Put succeeded with the daemon stopped")
	}
	if seald.IsPermanent(err) || seald.ErrorCode(err) != seald.EUNAVAILABLE {
		t.Fatalf("Put with the daemon stopped: %v (permanent %v, code %q); want a retryable unavailable error",
			err, seald.IsPermanent(err), seald.ErrorCode(err))
	}
	t.Logf("Put with the daemon stopped: %v", err)
	d.Restart()
	c, err := k.Put(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := k.Get(ctx, c)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("Get after restart: %v", err)
	}
}

// TestKuboThroughPrefixedProxy reaches the node through a reverse proxy under a path prefix, as an IPFS
// Cluster proxy endpoint behind a load balancer is reached, and serves what it stored from seald's gateway.
func TestKuboThroughPrefixedProxy(t *testing.T) {
	d := kubotest.Start(t)
	ctx := context.Background()
	target, _ := url.Parse(d.APIURL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	mux := http.NewServeMux()
	mux.Handle("/cluster/", http.StripPrefix("/cluster", proxy))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	k := newKubo(t, srv.URL+"/cluster/")
	b := randomBytes(700*KiB, 64)
	c, err := k.Put(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := ipfs.CID(ctx, b); c != want {
		t.Fatalf("%s, want %s", c, want)
	}
	gw := gatewayServer(t, k)
	_, file := get(t, gw.URL+"/ipfs/"+c)
	if !bytes.Equal(file, b) {
		t.Fatal("gateway over Kubo served other bytes")
	}
	_, car := get(t, gw.URL+"/ipfs/"+c+"?format=car")
	checkCAR(t, car, c, b)
}

// fakeNode answers the RPC API with canned faults; it stands in for Kubo only where a real node cannot be
// made to misbehave.
func fakeNode(t *testing.T, h http.HandlerFunc) *ipfs.Kubo {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return newKubo(t, srv.URL)
}

func TestKuboFaults(t *testing.T) {
	ctx := context.Background()
	b := []byte("envelope")
	want, _ := ipfs.CID(ctx, b)
	other, _ := ipfs.CID(ctx, []byte("something else"))
	status := func(code int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(code)
			fmt.Fprint(w, `{"Message":"nope","Code":0,"Type":"error"}`)
		}
	}
	for _, tc := range []struct {
		name      string
		h         http.HandlerFunc
		permanent bool
	}{
		{"500", status(500), false},
		{"503", status(503), false},
		{"429", status(429), false},
		{"400", status(400), true},
		{"403", status(403), true},
		{"404 no such endpoint", status(404), true},
		{"stream error in trailer", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Trailer", "X-Stream-Error")
			fmt.Fprintf(w, "{\"Name\":\"envelope\",\"Bytes\":8}\n")
			w.Header().Set("X-Stream-Error", "disk full")
		}, false},
		{"error object in stream", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"Message":"disk full","Code":0,"Type":"error"}`+"\n")
		}, false},
		{"no CID in answer", func(w http.ResponseWriter, r *http.Request) {}, false},
		{"other CID than computed", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "{\"Name\":\"envelope\",\"Hash\":%q,\"Size\":\"8\"}\n", other)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fakeNode(t, tc.h).Put(ctx, b)
			if err == nil {
				t.Fatal("Put succeeded")
			}
			if seald.IsPermanent(err) != tc.permanent {
				t.Fatalf("%v: permanent %v, want %v", err, seald.IsPermanent(err), tc.permanent)
			}
		})
	}

	t.Run("request parameters", func(t *testing.T) {
		var q url.Values
		var paths []string
		k := fakeNode(t, func(w http.ResponseWriter, r *http.Request) {
			paths = append(paths, r.Method+" "+r.URL.Path)
			if r.URL.Path == "/api/v0/add" {
				q = r.URL.Query()
				f, _, err := r.FormFile("file")
				if err != nil {
					t.Error(err)
					return
				}
				var got bytes.Buffer
				got.ReadFrom(f)
				if !bytes.Equal(got.Bytes(), b) {
					t.Error("uploaded bytes differ")
				}
				fmt.Fprintf(w, "{\"Name\":\"envelope\",\"Hash\":%q,\"Size\":\"8\"}\n", want)
				return
			}
			fmt.Fprintf(w, `{"Pins":[%q]}`, want)
		})
		if c, err := k.Put(ctx, b); err != nil || c != want {
			t.Fatalf("%s %v", c, err)
		}
		for key, v := range map[string]string{"cid-version": "1", "raw-leaves": "true", "hash": "sha2-256",
			"chunker": "size-262144", "trickle": "false", "max-file-links": "174", "pin": "true", "inline": "false"} {
			if q.Get(key) != v {
				t.Errorf("%s=%q, want %q", key, q.Get(key), v)
			}
		}
		if strings.Join(paths, ",") != "POST /api/v0/add,POST /api/v0/pin/add" {
			t.Errorf("calls %v", paths)
		}
	})

	t.Run("cat returns other bytes", func(t *testing.T) {
		k := fakeNode(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("forged")) })
		got, err := k.Get(ctx, want)
		if !errors.Is(err, ipfs.ErrCorrupt) || got != nil {
			t.Fatalf("Get: %q, %v; want ErrCorrupt", got, err)
		}
		if _, err := k.Block(ctx, mustCID(t, want)); !errors.Is(err, ipfs.ErrCorrupt) {
			t.Fatalf("Block: %v; want ErrCorrupt", err)
		}
	})

	t.Run("unreachable", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close()
		_, err := newKubo(t, srv.URL).Put(ctx, b)
		if err == nil || seald.IsPermanent(err) || seald.ErrorCode(err) != seald.EUNAVAILABLE {
			t.Fatalf("%v", err)
		}
	})

	t.Run("bad URLs", func(t *testing.T) {
		for _, u := range []string{"", "127.0.0.1:5001", "ftp://host", "http://", "http://h/?x=1"} {
			if _, err := ipfs.NewKubo(u, nil); seald.ErrorCode(err) != seald.EINVALID {
				t.Errorf("NewKubo(%q): %v", u, err)
			}
		}
	})
}

func mustCID(t *testing.T, s string) cid.Cid {
	t.Helper()
	c, err := cid.Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
