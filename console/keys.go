package console

import (
	"net/http"
	"time"

	"seald.dev/seald"
)

// Keys: the project's API keys (the subscription key is the business's, and stays with the operator). A new
// key's secret is shown once, on the page the action redirects to, kept in the session until then.

// keyRow is one key as the page shows it.
type keyRow struct {
	*seald.Key
	State   string // ACTIVE, EXPIRING (rotated, working until ExpiresAt), EXPIRED or REVOKED
	Current bool   // the key this session signed in with
}

// keysView is the body of the keys page.
type keysView struct {
	Keys   []keyRow
	Secret string
	Done   string
	Error  string
}

var keyDone = map[string]string{
	"issued":  "A new API key is issued.",
	"rotated": "The key is rotated: its successor is below.",
	"revoked": "The key is revoked: it no longer authenticates.",
}

// overlaps are the rotation overlaps the form offers.
var overlaps = map[string]time.Duration{"0": 0, "1h": time.Hour, "24h": 24 * time.Hour, "168h": 7 * 24 * time.Hour}

func (c *Console) keys(w http.ResponseWriter, r *request) {
	v := keysView{Done: keyDone[r.URL.Query().Get("done")]}
	if v.Done != "" && r.URL.Query().Get("done") != "revoked" {
		v.Secret = c.sessions.takeSecret(r.session)
	}
	c.showKeys(w, r, http.StatusOK, v)
}

func (c *Console) showKeys(w http.ResponseWriter, r *request, status int, v keysView) {
	ks, err := c.Service.ProjectKeys(r.Context(), r.caller)
	if err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	now := time.Now()
	for _, k := range ks {
		row := keyRow{Key: k, Current: k.ID == r.caller.KeyID, State: "ACTIVE"}
		switch {
		case k.RevokedAt != nil:
			row.State = "REVOKED"
		case !k.Active(now):
			row.State = "EXPIRED"
		case k.ExpiresAt != nil:
			row.State = "EXPIRING"
		}
		v.Keys = append(v.Keys, row)
	}
	c.render(w, r.Request, status, keysTmpl, c.page(r, "API keys", v))
}

// keyOutcome answers a key action: its secret kept for the next page, or the refusal.
func (c *Console) keyOutcome(w http.ResponseWriter, r *request, secret string, err error, done string) {
	switch seald.ErrorCode(err) {
	case "":
		if secret != "" {
			c.sessions.keepSecret(r.session, secret)
		}
		redirect(w, r.Request, "/console/keys?done="+done)
	case seald.EINVALID:
		c.showKeys(w, r, http.StatusBadRequest, keysView{Error: seald.ErrorMessage(err)})
	case seald.EUNAUTHORIZED:
		// The session's key may not manage keys (it is in its rotation overlap): the page says why.
		c.showKeys(w, r, http.StatusForbidden, keysView{Error: seald.ErrorMessage(err)})
	default:
		c.fail(w, r.Request, r, err)
	}
}

func (c *Console) issueKey(w http.ResponseWriter, r *request) {
	secret, _, err := c.Service.IssueProjectKey(r.Context(), r.caller)
	c.keyOutcome(w, r, secret, err, "issued")
}

func (c *Console) rotateKey(w http.ResponseWriter, r *request) {
	overlap, ok := overlaps[r.PostFormValue("overlap")]
	if !ok {
		c.showKeys(w, r, http.StatusBadRequest, keysView{Error: "overlap must be one of the choices offered"})
		return
	}
	secret, _, err := c.Service.RotateProjectKey(r.Context(), r.caller, r.PathValue("id"), overlap)
	c.keyOutcome(w, r, secret, err, "rotated")
}

func (c *Console) revokeKey(w http.ResponseWriter, r *request) {
	if r.PostFormValue("confirm") != "yes" {
		c.showKeys(w, r, http.StatusBadRequest, keysView{Error: "Tick the box to confirm the revocation."})
		return
	}
	_, err := c.Service.RevokeProjectKey(r.Context(), r.caller, r.PathValue("id"))
	c.keyOutcome(w, r, "", err, "revoked")
}
