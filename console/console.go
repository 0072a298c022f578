// Package console serves the businesses' console at /console/: a project signs in with its subscription key
// and API key and sees, searches and acts on its own records in the browser. Like the public page (package
// web) it is server-rendered html/template from embedded assets, works without JavaScript (plain forms,
// POST-redirect-GET), sends a strict Content-Security-Policy with no inline script, and uses the API's words
// and statuses. Every rule stays in the domain Service; this package only translates.
package console

import (
	"bytes"
	"embed"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
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

// Source is what the console calls of the domain, for the caller a session authenticates as: the root's
// service interfaces combined, never declared again here. *service.Service satisfies it; the handler tests
// fake it (package mock).
type Source interface {
	seald.TenantService
	seald.RecordService
	seald.VerificationService
	seald.WebhookService
	seald.IdentityService
}

// Throttle counts failed sign-ins in the API's budget of failed authentications (httpapi.Server): ok is
// false once the client is past it, with the seconds it should wait.
type Throttle interface {
	AuthenticationFailed(r *http.Request) (ok bool, retryAfter int)
}

// Limits is the API's budget of requests per API key (httpapi.Server.Spend): every console request of a
// session spends one, a seal of n records n, so that the console admits no more than the API would.
type Limits interface {
	Spend(c *seald.Caller, n int) (retryAfter int, err error)
}

// Defaults of the session lifetimes.
const (
	DefaultIdle     = 30 * time.Minute
	DefaultAbsolute = 12 * time.Hour
)

// Console is the console. Set the fields, then serve it at /console/.
type Console struct {
	Service  Source
	Throttle Throttle // nil: failed sign-ins are not throttled
	Limits   Limits   // nil: the console's requests are not rate-limited
	Logger   *slog.Logger
	// Idle ends a session not used for this long (DefaultIdle when 0); Absolute ends any session this long
	// after its sign-in (DefaultAbsolute when 0).
	Idle, Absolute time.Duration
	// Now is the clock of the session expiries (time.Now when nil).
	Now func() time.Time

	once     sync.Once
	handler  http.Handler
	sessions *sessions
}

// cookieName is the session cookie; its value is an opaque random id, the session itself stays on the
// server.
const cookieName = "seald_console"

// csp: everything from this origin only, no inline script or style, forms post only here, never framed.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// formLimit bounds a form body (a reason is at most a few KB).
const formLimit = 64 << 10

// ServeHTTP answers the console's pages, forms and assets.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.once.Do(c.init)
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	c.handler.ServeHTTP(w, r)
}

func (c *Console) init() {
	now := c.Now
	if now == nil {
		now = time.Now
	}
	idle, absolute := c.Idle, c.Absolute
	if idle <= 0 {
		idle = DefaultIdle
	}
	if absolute <= 0 {
		absolute = DefaultAbsolute
	}
	c.sessions = newSessions(idle, absolute, now)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /console", func(w http.ResponseWriter, r *http.Request) { redirect(w, r, "/console/") })
	mux.HandleFunc("GET /console/{$}", c.home)
	mux.HandleFunc("GET /console/sign-in", c.signInPage)
	mux.HandleFunc("POST /console/sign-in", c.signIn)
	mux.HandleFunc("POST /console/sign-out", c.signedIn(c.signOut))
	mux.HandleFunc("GET /console/records", c.signedIn(c.records))
	mux.HandleFunc("GET /console/search", c.signedIn(c.search))
	mux.HandleFunc("GET /console/records/{ref}", c.signedIn(c.record))
	mux.HandleFunc("GET /console/records/{ref}/proof.json", c.signedIn(c.proof))
	mux.HandleFunc("GET /console/records/{ref}/data", c.signedIn(c.data))
	mux.HandleFunc("POST /console/records/{ref}/data", c.signedIn(c.dataWithPassword))
	mux.HandleFunc("GET /console/records/{ref}/data.json", c.signedIn(c.dataFile))
	mux.HandleFunc("POST /console/records/{ref}/status", c.signedIn(c.changeStatus))
	mux.HandleFunc("GET /console/records/{ref}/revoke", c.signedIn(c.confirmPage("revoke")))
	mux.HandleFunc("POST /console/records/{ref}/revoke", c.signedIn(c.revoke))
	mux.HandleFunc("GET /console/records/{ref}/erase", c.signedIn(c.confirmPage("erase")))
	mux.HandleFunc("POST /console/records/{ref}/erase", c.signedIn(c.erase))
	mux.HandleFunc("GET /console/seal", c.signedIn(c.sealPage))
	mux.HandleFunc("POST /console/seal", c.signedInLimit(sealLimit, c.seal))
	mux.HandleFunc("GET /console/sealed", c.signedIn(c.sealed))
	mux.HandleFunc("GET /console/webhooks", c.signedIn(c.webhooks))
	mux.HandleFunc("POST /console/webhooks", c.signedIn(c.createWebhook))
	mux.HandleFunc("GET /console/webhooks/{id}", c.signedIn(c.webhook))
	mux.HandleFunc("POST /console/webhooks/{id}/delete", c.signedIn(c.deleteWebhook))
	mux.HandleFunc("POST /console/webhooks/{id}/deliveries/{delivery}/replay", c.signedIn(c.replayDelivery))
	mux.HandleFunc("GET /console/glance", c.signedIn(c.glance))
	mux.HandleFunc("GET /console/identity", c.signedIn(c.identity))
	mux.HandleFunc("POST /console/identity", c.signedIn(c.setIdentity))
	mux.HandleFunc("POST /console/identity/check", c.signedIn(c.checkIdentity))
	mux.HandleFunc("GET /console/keys", c.signedIn(c.keys))
	mux.HandleFunc("POST /console/keys", c.signedIn(c.issueKey))
	mux.HandleFunc("POST /console/keys/{id}/rotate", c.signedIn(c.rotateKey))
	mux.HandleFunc("POST /console/keys/{id}/revoke", c.signedIn(c.revokeKey))
	mux.Handle("GET /console/assets/{name}", assets)
	mux.HandleFunc("/console/", func(w http.ResponseWriter, r *http.Request) { c.notFound(w, r, nil) })
	c.handler = mux
}

func (c *Console) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// request is a signed-in request: its session and the caller its keys authenticate as.
type request struct {
	*http.Request
	session *session
	caller  *seald.Caller
}

// signedIn runs h for a request with a live session whose keys still authenticate; any other request is
// sent to the sign-in page (a GET) or refused (a POST). Every POST must carry the session's CSRF token, and,
// when the browser names one, come from this origin.
func (c *Console) signedIn(h func(w http.ResponseWriter, r *request)) http.HandlerFunc {
	return c.signedInLimit(formLimit, h)
}

// signedInLimit is signedIn with a bound on the form's body other than formLimit (an upload).
func (c *Console) signedInLimit(limit int64, h func(w http.ResponseWriter, r *request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var s *session
		if ck, err := r.Cookie(cookieName); err == nil {
			s = c.sessions.get(ck.Value)
		}
		if s == nil {
			c.toSignIn(w, r)
			return
		}
		caller, err := c.Service.Authenticate(r.Context(), s.subscriptionKey, s.apiKey)
		if err != nil {
			if seald.ErrorCode(err) == seald.EUNAUTHORIZED {
				// The key was revoked or expired since the sign-in: the session ends with it.
				c.sessions.end(s.id)
				c.toSignIn(w, r)
				return
			}
			c.fail(w, r, nil, err)
			return
		}
		rq := &request{Request: r, session: s, caller: caller}
		if !c.spend(w, rq, 1) {
			return
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
			if !sameOrigin(r) || !s.validCSRF(r.PostFormValue("csrf")) {
				c.render(w, r, http.StatusForbidden, errorPage, c.page(rq, "Refused", errorView{
					Message: "This form was not sent by this console page (its security token is missing or " +
						"out of date). Go back, reload the page and try again."}))
				return
			}
		}
		h(w, rq)
	}
}

// spend takes n requests' worth of the caller's API budget; past it, the page says so with the API's 429
// and Retry-After, and spend reports false.
func (c *Console) spend(w http.ResponseWriter, r *request, n int) bool {
	if c.Limits == nil {
		return true
	}
	after, err := c.Limits.Spend(r.caller, n)
	if err == nil {
		return true
	}
	w.Header().Set("Retry-After", strconv.Itoa(after))
	c.render(w, r.Request, http.StatusTooManyRequests, errorPage, c.page(r, "Too many requests", errorView{
		Message: seald.ErrorMessage(err) + " This project's API keys allow only so many requests a second, in the console as through the API."}))
	return false
}

// toSignIn answers a request without a session: a page request goes to the sign-in page, a form is refused.
func (c *Console) toSignIn(w http.ResponseWriter, r *http.Request) {
	clearCookie(w, r)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		c.render(w, r, http.StatusUnauthorized, signInPage, page{Title: "Sign in", Body: signInView{
			Message: "Your session has ended. Sign in again."}})
		return
	}
	redirect(w, r, "/console/sign-in")
}

// sameOrigin reports whether a form comes from this origin, as far as the browser says: Sec-Fetch-Site when
// it is sent (every current browser), else an Origin naming another host refuses. An Origin of "null" (what
// a browser sends under Referrer-Policy: no-referrer) and a client that says nothing pass: the CSRF token
// decides.
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin", "none":
		return true
	case "":
	default:
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" || o == "null" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}

func redirect(w http.ResponseWriter, r *http.Request, to string) {
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func secure(r *http.Request) bool { return r.TLS != nil }

func setCookie(w http.ResponseWriter, r *http.Request, s *session, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.id, Path: "/console/", HttpOnly: true,
		Secure: secure(r), SameSite: http.SameSiteStrictMode, MaxAge: int(maxAge.Seconds())})
}

func clearCookie(w http.ResponseWriter, r *http.Request) {
	if _, err := r.Cookie(cookieName); err != nil {
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/console/", HttpOnly: true,
		Secure: secure(r), SameSite: http.SameSiteStrictMode, MaxAge: -1})
}

// page is what the layout renders: the page's title, the signed-in project (nil on the sign-in page), the
// session's CSRF token for the forms, and the page's own view.
type page struct {
	Title    string
	Project  *seald.Project
	Business *seald.Business
	CSRF     string
	Query    string
	Body     any
}

func (c *Console) page(r *request, title string, body any) page {
	p := page{Title: title, Body: body}
	if r != nil {
		p.CSRF = r.session.csrf
		if r.caller != nil {
			p.Project, p.Business = r.caller.Project, r.caller.Business
		}
	}
	return p
}

// errorView is the body of an error page.
type errorView struct {
	Message string
	Back    string
}

// fail answers an error as a page, in the API's words for what the caller can fix.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, rq *request, err error) {
	if seald.ErrorCode(err) == seald.ENOTFOUND {
		c.notFound(w, r, rq)
		return
	}
	status := httpstatus.Of(err) // the API's table: a code has one status wherever it is answered
	msg := seald.ErrorMessage(err)
	switch {
	case status == http.StatusServiceUnavailable:
		msg = "The service cannot answer right now. Please try again in a few minutes."
	case status >= 500:
		msg = "Something went wrong on our side. Please try again later."
		c.logger().ErrorContext(r.Context(), "console", "path", r.URL.Path, "err", err)
	}
	c.render(w, r, status, errorPage, c.page(rq, "Error", errorView{Message: msg}))
}

func (c *Console) notFound(w http.ResponseWriter, r *http.Request, rq *request) {
	c.render(w, r, http.StatusNotFound, errorPage, c.page(rq, "Not found", errorView{
		Message: "There is no such page or record in this project."}))
}

func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, t *template.Template, data page) {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", data); err != nil {
		c.logger().ErrorContext(r.Context(), "render console page", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// Templates: one layout, one page each.
var (
	signInPage   = pageTemplate("signin.html")
	recordsPage  = pageTemplate("records.html")
	recordPage   = pageTemplate("record.html")
	dataTmpl     = pageTemplate("data.html")
	confirmTmpl  = pageTemplate("confirm.html")
	errorPage    = pageTemplate("error.html")
	sealTmpl     = pageTemplate("seal.html")
	sealedTmpl   = pageTemplate("sealed.html")
	hooksTmpl    = pageTemplate("webhooks.html")
	hookTmpl     = pageTemplate("webhook.html")
	identityTmpl = pageTemplate("identity.html")
	keysTmpl     = pageTemplate("keys.html")
	glanceTmpl   = pageTemplate("glance.html")
)

var funcs = template.FuncMap{
	"asset": assets.URL,
	"time": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	"iso": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	// The timeline's times, to the millisecond: the steps of a record are often less than a second apart.
	"timeMs": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.000 UTC") },
	"isoMs":  func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") },
	"u64":    func(n uint64) string { return strconv.FormatUint(n, 10) },
	"event":  eventWords,
}

func pageTemplate(name string) *template.Template {
	t := template.New(name).Funcs(funcs)
	return template.Must(t.ParseFS(templateFS, "templates/layout.html", "templates/"+name))
}

// assets are the console's files under /console/assets/, at versioned URLs (package assets).
var assets = staticassets.Load(assetFS, "assets", "/console/assets/")
