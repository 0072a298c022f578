// Package web serves seald's public verification page: /v/{reference} (or /v/{encrypted_ovi}) as
// server-rendered HTML that works with JavaScript off, the QR code of that link, and the page's own assets.
// Everything it sends is embedded in the binary; no page refers to another origin except the owner's logo and
// the links the reader may follow (website, explorer, IPFS gateway).
package web

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"seald.dev/seald"
	staticassets "seald.dev/seald/internal/assets"
	"seald.dev/seald/internal/httpstatus"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// Source is what the page reads of the domain: the public view of a record, its proof bundle, a token's
// metadata, and the service's links, all of seald.VerificationService. *service.Service satisfies it; the
// handler tests fake it (package mock).
type Source interface {
	seald.VerificationService
}

// Page is the public verification page. Set the fields, then serve it at GET /v/ and GET /assets/.
type Page struct {
	Service Source
	// GatewayURL is the base of the IPFS gateway link ("{GatewayURL}/ipfs/{cid}").
	GatewayURL string
	Logger     *slog.Logger
	// BlockTimes, when set, gives the time of an anchor's block, shown on the page; nil: not shown.
	BlockTimes BlockTimer

	once    sync.Once
	handler http.Handler
	timesMu sync.Mutex
	times   map[string]time.Time // network/block: its time
}

// csp allows script and style from /assets only (no inline script, so an injected <script> cannot run even
// if escaping failed), images from anywhere over http(s) because the owner's logo lives on their own site,
// and connections to this service (the proof bundle and trust root) and to any http(s) URL, because the
// in-browser proof check asks the chain node the visitor chooses. The data check (check.js) makes no
// connection at all.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https: http:; " +
	"connect-src 'self' https: http:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// ServeHTTP answers the page, its QR codes and its assets.
func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.once.Do(func() {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /v/{id}", p.record)
		mux.HandleFunc("GET /v/{id}/proof.json", p.proof)
		mux.HandleFunc("GET /tokens/{network}/{id}", p.token)
		mux.HandleFunc("GET /tokens/", func(w http.ResponseWriter, r *http.Request) {
			p.failJSON(w, r, seald.Errorf(seald.ENOTFOUND, "no token at %s: the path is /tokens/{network}/{token_id}", r.URL.Path))
		})
		mux.HandleFunc("GET /v/{id}/qr.png", p.qr(qrPNG, "image/png"))
		mux.HandleFunc("GET /v/{id}/qr.svg", p.qr(qrSVG, "image/svg+xml"))
		mux.Handle("GET /assets/{name}", assets)
		mux.HandleFunc("GET /assets/seald-checker.html", p.checker)
		// The presentation maker: under /v/ (which serve hands to the page), and no reference is named "present".
		mux.HandleFunc("GET /v/present", func(w http.ResponseWriter, r *http.Request) { p.render(w, http.StatusOK, presentPage, nil) })
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { p.notFound(w, r) })
		p.handler = mux
	})
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	// A reference is a bearer look-up key: links out of the page (explorer, gateway, website, logo) must not
	// carry it in a Referer.
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	p.handler.ServeHTTP(w, r)
}

func (p *Page) logger() *slog.Logger {
	if p.Logger != nil {
		return p.Logger
	}
	return slog.Default()
}

func (p *Page) record(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	rec, err := p.Service.PublicRecord(r.Context(), id)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	v := p.view(id, rec)
	if at := p.blockTime(r.Context(), rec); !at.IsZero() {
		v.setAnchoredAt(at)
	}
	p.render(w, http.StatusOK, recordPage, v)
}

// BlockTimer tells when a block of a network was made: the time the page gives an anchor.
type BlockTimer interface {
	BlockTime(ctx context.Context, network string, block uint64) (time.Time, error)
}

// maxBlockTimes bounds the cache of block times: one entry per anchoring batch read by a visitor.
const maxBlockTimes = 10000

// blockTime is the time of the block that anchored rec, zero when unknown. The block of a confirmed batch
// is final, so its time is kept once read; a node that does not answer costs the page that line only.
func (p *Page) blockTime(ctx context.Context, rec *seald.PublicRecord) time.Time {
	if p.BlockTimes == nil || rec.Private || rec.TokenID == 0 || rec.BlockNumber == 0 {
		return time.Time{}
	}
	key := rec.Network + "/" + strconv.FormatUint(rec.BlockNumber, 10)
	p.timesMu.Lock()
	at, ok := p.times[key]
	p.timesMu.Unlock()
	if ok {
		return at
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	at, err := p.BlockTimes.BlockTime(ctx, rec.Network, rec.BlockNumber)
	if err != nil {
		p.logger().WarnContext(ctx, "verification page: block time", "network", rec.Network, "block", rec.BlockNumber, "err", err)
		return time.Time{}
	}
	p.timesMu.Lock()
	if p.times == nil || len(p.times) >= maxBlockTimes {
		p.times = map[string]time.Time{}
	}
	p.times[key] = at
	p.timesMu.Unlock()
	return at
}

// proof serves the proof bundle of a PUBLIC anchored record to anyone, as a file `seald proof verify` and
// any independent verifier read; a PRIVATE, unknown or not yet anchored record is a JSON 404, since the
// reader of this path is a program, not a person.
func (p *Page) proof(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	pr, err := p.Service.PublicProof(r.Context(), id)
	if err != nil {
		p.failJSON(w, r, err)
		return
	}
	name, b, err := pr.File()
	if err != nil {
		p.failJSON(w, r, err)
		return
	}
	staticassets.Attachment(w, name, b)
}

// token serves a token's ERC-721 metadata, the document the contract's tokenURI names.
func (p *Page) token(w http.ResponseWriter, r *http.Request) {
	m, err := p.Service.TokenMetadata(r.Context(), r.PathValue("network"), r.PathValue("id"))
	if err != nil {
		p.failJSON(w, r, err)
		return
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		p.failJSON(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(append(b, '\n'))
}

// statusClientGone is the status counted for a page request whose client went away before its answer, as
// the API counts it (httpapi.StatusClientGone, nginx's 499).
const statusClientGone = 499

// fail answers an error as an HTML page, with the status of the API's table (httpstatus); a person only
// needs to tell "no such record" from "try again later", so every other fault is the same page.
func (p *Page) fail(w http.ResponseWriter, r *http.Request, err error) {
	if p.clientGone(w, r, err) {
		return
	}
	switch status := httpstatus.Of(err); {
	case status == http.StatusNotFound:
		p.notFound(w, r)
	case status == http.StatusServiceUnavailable:
		p.render(w, status, errorPage, errorView{Title: "Try again later",
			Message: "The verification service cannot reach its records right now. Please try again in a few minutes."})
	default:
		p.logger().ErrorContext(r.Context(), "verification page", "path", r.URL.Path, "err", err)
		p.render(w, http.StatusInternalServerError, errorPage, errorView{Title: "Something went wrong",
			Message: "The record could not be read because of a fault on our side. Please try again later."})
	}
}

// clientGone answers 499 when the reader closed the page (or its browser gave up) while the record was being
// read: nobody sees that answer and it is not the server's fault, so it is neither a 5xx in the metrics nor
// an ERROR in the log.
func (p *Page) clientGone(w http.ResponseWriter, r *http.Request, err error) bool {
	if seald.ErrorCode(err) == seald.ENOTFOUND || !errors.Is(r.Context().Err(), context.Canceled) {
		return false
	}
	p.logger().InfoContext(r.Context(), "client went away", "path", r.URL.Path, "err", err)
	w.WriteHeader(statusClientGone)
	return true
}

// jsonErrorBody is the API's plain envelope ({"success", "data", "error"}), which the JSON paths served here
// (proof bundles, token metadata) answer on failure, so that a program reading them never gets HTML.
type jsonErrorBody struct {
	Success bool    `json:"success"`
	Data    any     `json:"data"`
	Error   *string `json:"error"`
}

// failJSON answers an error of a JSON path in the plain envelope: 404 for anything that names no public
// document, 503 while the store is unreachable, 500 with a generic message (the detail goes to the log).
func (p *Page) failJSON(w http.ResponseWriter, r *http.Request, err error) {
	if p.clientGone(w, r, err) {
		return
	}
	status, msg := httpstatus.Of(err), seald.ErrorMessage(err) // the API's table
	switch {
	case status == http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", "1")
	case status >= 500:
		msg = "internal error"
		p.logger().ErrorContext(r.Context(), "verification page", "path", r.URL.Path, "err", err)
	}
	b, _ := json.Marshal(jsonErrorBody{Data: nil, Error: &msg})
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func (p *Page) notFound(w http.ResponseWriter, _ *http.Request) {
	p.render(w, http.StatusNotFound, notFoundPage, errorView{Title: "No sealed record found"})
}

func (p *Page) render(w http.ResponseWriter, status int, t *template.Template, data any) {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", data); err != nil {
		p.logger().Error("render verification page", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// A record's status can change at any time (revocation): never serve a stale verdict from a cache.
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// Templates: one layout, one page each.
var (
	recordPage   = pageTemplate("record.html")
	notFoundPage = pageTemplate("notfound.html")
	presentPage  = pageTemplate("present.html") // selective disclosure: a presentation made in the browser
	errorPage    = pageTemplate("error.html")
)

func pageTemplate(name string) *template.Template {
	t := template.New(name).Funcs(template.FuncMap{"asset": assets.URL})
	return template.Must(t.ParseFS(templateFS, "templates/layout.html", "templates/"+name))
}

// assets are the page's files under /assets/, at versioned URLs (package assets).
var assets = staticassets.Load(assetFS, "assets", "/assets/")

// httpURL returns s when it is an absolute http or https URL, else "". Owner-supplied URLs (logo, website)
// become links or images only then; html/template would neutralize a javascript: URL anyway, but a
// relative or odd URL would still point somewhere surprising.
func httpURL(s string) string {
	s = strings.TrimSpace(s)
	l := strings.ToLower(s)
	if (strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://")) && len(s) > len("https://") &&
		!strings.ContainsAny(s, " \t\r\n\"'<>`") {
		return s
	}
	return ""
}
