package console

import (
	"net/http"
	"strconv"
	"strings"

	"seald.dev/seald"
)

// signInView is the body of the sign-in page.
type signInView struct {
	Message string
}

// home sends a signed-in browser to its records and anyone else to the sign-in page.
func (c *Console) home(w http.ResponseWriter, r *http.Request) {
	if ck, err := r.Cookie(cookieName); err == nil && c.sessions.get(ck.Value) != nil {
		redirect(w, r, "/console/records")
		return
	}
	redirect(w, r, "/console/sign-in")
}

func (c *Console) signInPage(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, http.StatusOK, signInPage, page{Title: "Sign in", Body: signInView{}})
}

// signIn exchanges the project's two keys for a session. A failed sign-in is counted in the API's budget of
// failed authentications; past it, the answer is 429 with Retry-After whatever the keys.
func (c *Console) signIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, formLimit)
	if !sameOrigin(r) {
		c.render(w, r, http.StatusForbidden, signInPage, page{Title: "Sign in", Body: signInView{
			Message: "This form was not sent by this console's sign-in page."}})
		return
	}
	sub := strings.TrimSpace(r.PostFormValue("subscription_key"))
	key := strings.TrimSpace(r.PostFormValue("api_key"))
	caller, err := c.Service.Authenticate(r.Context(), sub, key)
	if err != nil {
		if seald.ErrorCode(err) != seald.EUNAUTHORIZED {
			c.fail(w, r, nil, err)
			return
		}
		status, msg := http.StatusUnauthorized, seald.ErrorMessage(err)
		if c.Throttle != nil {
			if ok, after := c.Throttle.AuthenticationFailed(r); !ok {
				w.Header().Set("Retry-After", strconv.Itoa(after))
				status, msg = http.StatusTooManyRequests, "too many failed authentications from this client; try again later"
			}
		}
		c.render(w, r, status, signInPage, page{Title: "Sign in", Body: signInView{Message: msg}})
		return
	}
	if caller.Project == nil {
		c.fail(w, r, nil, seald.Errorf(seald.EUNAUTHORIZED, "the console belongs to a project: sign in with a project's keys"))
		return
	}
	// A successful sign-in spends the key's API budget like any request, so that valid keys cannot mint
	// sessions faster than they could call the API.
	if c.Limits != nil {
		if after, err := c.Limits.Spend(caller, 1); err != nil {
			w.Header().Set("Retry-After", strconv.Itoa(after))
			c.render(w, r, http.StatusTooManyRequests, signInPage, page{Title: "Sign in", Body: signInView{Message: seald.ErrorMessage(err)}})
			return
		}
	}
	if ck, err := r.Cookie(cookieName); err == nil {
		c.sessions.end(ck.Value) // a new sign-in never keeps an old session id
	}
	s := c.sessions.create(caller.Business.BusinessID, sub, key)
	if s == nil {
		w.Header().Set("Retry-After", "60")
		c.render(w, r, http.StatusServiceUnavailable, signInPage, page{Title: "Sign in", Body: signInView{
			Message: "The console has as many sessions as it can hold; try again in a few minutes."}})
		return
	}
	setCookie(w, r, s, c.sessions.max)
	redirect(w, r, "/console/records")
}

// signOut ends the session on the server, so the cookie is worthless even if it was copied.
func (c *Console) signOut(w http.ResponseWriter, r *request) {
	c.sessions.end(r.session.id)
	clearCookie(w, r.Request)
	redirect(w, r.Request, "/console/sign-in")
}
