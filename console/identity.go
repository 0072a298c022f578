package console

import (
	"encoding/json"
	"net/http"
	"strings"

	"seald.dev/seald"
	"seald.dev/seald/didweb"
)

// The business's domain identity (did:web, docs/identity.md): the domain claimed, where its verification
// stands, the DID document to publish, and the forms to claim a domain, rotate the key and check now.

// identityView is the body of the identity page.
type identityView struct {
	Identity    *seald.Identity
	Document    string // indented JSON, to copy as it is
	DocumentURL string
	Domain      string
	Error       string
	Done        string
}

var identityDone = map[string]string{
	"set":     "The domain is set: publish the DID document below, then check it.",
	"rotated": "A new key is made: publish the DID document below, then check it.",
	"checked": "The domain was checked.",
}

func (c *Console) identity(w http.ResponseWriter, r *request) {
	c.showIdentity(w, r, http.StatusOK, identityView{Done: identityDone[r.URL.Query().Get("done")]})
}

func (c *Console) showIdentity(w http.ResponseWriter, r *request, status int, v identityView) {
	id, doc, err := c.Service.IdentityOf(r.Context(), r.caller)
	switch {
	case seald.ErrorCode(err) == seald.ENOTFOUND:
	case err != nil:
		c.fail(w, r.Request, r, err)
		return
	default:
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			c.fail(w, r.Request, r, err)
			return
		}
		v.Identity, v.Document = id, string(b)
		v.DocumentURL, _ = didweb.DocumentURL(id.DID)
		if v.Domain == "" {
			v.Domain = id.Domain
		}
	}
	c.render(w, r.Request, status, identityTmpl, c.page(r, "Domain identity", v))
}

func (c *Console) setIdentity(w http.ResponseWriter, r *request) {
	_ = r.ParseForm()
	domain := strings.TrimSpace(r.PostFormValue("domain"))
	rotate := r.PostFormValue("rotate_key") == "1"
	if _, _, err := c.Service.SetIdentity(r.Context(), r.caller, seald.IdentityRequest{Domain: domain, RotateKey: rotate}); err != nil {
		if seald.ErrorCode(err) == seald.EINVALID {
			c.showIdentity(w, r, http.StatusBadRequest, identityView{Domain: domain, Error: seald.ErrorMessage(err)})
			return
		}
		c.fail(w, r.Request, r, err)
		return
	}
	done := "set"
	if rotate {
		done = "rotated"
	}
	redirect(w, r.Request, "/console/identity?done="+done)
}

func (c *Console) checkIdentity(w http.ResponseWriter, r *request) {
	if _, _, err := c.Service.CheckIdentity(r.Context(), r.caller); err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	redirect(w, r.Request, "/console/identity?done=checked")
}
