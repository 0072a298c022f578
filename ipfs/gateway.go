package ipfs

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"strings"
	"time"

	"seald.dev/seald"
)

// Media types of the trustless gateway (https://specs.ipfs.tech/http-gateways/trustless-gateway/).
const (
	mediaRaw  = "application/vnd.ipld.raw"
	mediaCAR  = "application/vnd.ipld.car"
	mediaFile = "application/octet-stream"
)

// carContentType states the CAR's properties as the spec asks, so a client knows it may verify the blocks
// while streaming them in order and will not see a block twice.
const carContentType = mediaCAR + "; version=1; order=dfs; dups=n"

// Gateway serves GET /ipfs/{cid} from a Source: the file's bytes, or with ?format=raw / ?format=car (or the
// matching Accept header) the root block or a CAR of the whole DAG, so that anyone can fetch a record's
// encrypted envelope and check its CID without trusting seald.
//
// Mount it under /ipfs/ or with the pattern "GET /ipfs/{cid}"; it matches the path itself, so either works.
// The stored envelopes are small, so each answer is built in memory before the first byte goes out: a block
// that fails its hash check turns into a 500 instead of a truncated body.
type Gateway struct {
	src Source
	mux *http.ServeMux

	// WriteError, when set, writes every error answer, so the HTTP API can keep one code-to-status table.
	// When nil the gateway answers 400, 404 or 500 with the API's JSON error envelope.
	WriteError func(w http.ResponseWriter, r *http.Request, err error)
	// Gone, when set, is asked about every CID before it is served; an error (EGONE for the CID of an
	// erased record) is the answer instead. It keeps a copy the node still holds (Kubo frees unpinned blocks
	// only at its next garbage collection) from being served after its record was erased.
	Gone func(ctx context.Context, cid string) error
}

var _ http.Handler = (*Gateway)(nil)

// NewGateway returns a gateway over src (an *Embedded, a *Kubo, or any other Source).
func NewGateway(src Source) *Gateway {
	g := &Gateway{src: src, mux: http.NewServeMux()}
	g.mux.HandleFunc("GET /ipfs/{cid}", g.serve)
	g.mux.HandleFunc("/ipfs/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeJSONError(w, http.StatusMethodNotAllowed, "method not allowed")
			return
		}
		g.fail(w, r, seald.Errorf(seald.ENOTFOUND, "only /ipfs/{cid} is served, not paths inside it"))
	})
	return g
}

// ServeHTTP answers one gateway request.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) { g.mux.ServeHTTP(w, r) }

func (g *Gateway) serve(w http.ResponseWriter, r *http.Request) {
	c, err := ParseCID(r.PathValue("cid"))
	if err != nil {
		g.fail(w, r, err)
		return
	}
	format, err := responseFormat(r)
	if err != nil {
		g.fail(w, r, err)
		return
	}
	ctx := r.Context()
	if g.Gone != nil {
		if err := g.Gone(ctx, c.String()); err != nil {
			g.fail(w, r, err)
			return
		}
	}
	var (
		body        []byte
		contentType string
		etag        string
		filename    string
	)
	switch format {
	case mediaRaw:
		body, err = g.src.Block(ctx, c)
		contentType, etag, filename = mediaRaw, `"`+c.String()+`.raw"`, c.String()+".bin"
	case mediaCAR:
		var buf bytes.Buffer
		err = WriteCAR(ctx, g.src, c, &buf)
		body = buf.Bytes()
		contentType, etag, filename = carContentType, `"`+c.String()+`.car"`, c.String()+".car"
	default:
		body, err = ReadFile(ctx, g.src, c)
		contentType, etag = mediaFile, `"`+c.String()+`"`
	}
	if err != nil {
		g.fail(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Etag", etag)
	// The bytes behind a CID never change: any cache may keep them for as long as it likes.
	h.Set("Cache-Control", "public, max-age=29030400, immutable")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Ipfs-Path", "/ipfs/"+c.String())
	h.Set("X-Ipfs-Roots", c.String())
	h.Set("Vary", "Accept")
	if filename != "" {
		h.Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	}
	// ServeContent answers Range, HEAD and If-None-Match against the ETag set above.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// responseFormat picks the answer's media type: ?format= wins over Accept, as the gateway spec says; without
// either, the file's bytes.
func responseFormat(r *http.Request) (string, error) {
	switch f := r.URL.Query().Get("format"); f {
	case "raw":
		return mediaRaw, nil
	case "car":
		return mediaCAR, nil
	case "":
	default:
		return "", seald.Errorf(seald.EINVALID, "unsupported format %q: use raw or car", f)
	}
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || params["q"] == "0" {
			continue
		}
		switch mt {
		case mediaRaw:
			return mediaRaw, nil
		case mediaCAR:
			if v, ok := params["version"]; ok && v != "1" {
				return "", seald.Errorf(seald.EINVALID, "only CAR version 1 is served")
			}
			if o, ok := params["order"]; ok && o != "dfs" && o != "unk" {
				return "", seald.Errorf(seald.EINVALID, "only CAR order dfs is served")
			}
			return mediaCAR, nil
		case mediaFile, "*/*", "application/*":
			return mediaFile, nil
		}
	}
	return mediaFile, nil
}

func (g *Gateway) fail(w http.ResponseWriter, r *http.Request, err error) {
	if g.WriteError != nil {
		g.WriteError(w, r, err)
		return
	}
	status := http.StatusInternalServerError
	switch seald.ErrorCode(err) {
	case seald.EINVALID:
		status = http.StatusBadRequest
	case seald.ENOTFOUND:
		status = http.StatusNotFound
	case seald.EGONE:
		status = http.StatusGone
	case seald.EUNAVAILABLE:
		status = http.StatusServiceUnavailable
	}
	writeJSONError(w, status, seald.ErrorMessage(err))
}

// writeJSONError writes the API's error envelope.
func writeJSONError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(struct {
		Success bool    `json:"success"`
		Data    *string `json:"data"`
		Error   string  `json:"error"`
	}{Error: msg})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
