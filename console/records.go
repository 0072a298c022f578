package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	staticassets "seald.dev/seald/internal/assets"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// pageSize is how many records a page of the list shows.
const pageSize = 20

// recordsView is the body of the records list.
type recordsView struct {
	Records  []*seald.Record
	Status   string
	State    string
	From, To string // the date filter as given (YYYY-MM-DD), both days included
	Statuses []seald.Status
	States   []seald.State
	// Next is the URL of the next page ("" on the last); First that of the first page when this is not it.
	Next, First string
	// Resume is the URL that searches further back when a filtered page stopped at its bound, Walked
	// records (seald.ListWalk) after the previous page, before it was full; ResumeCreated is when the last
	// record searched was sealed.
	Resume        string
	ResumeCreated time.Time
	Walked        string
}

func (c *Console) records(w http.ResponseWriter, r *request) {
	q := r.URL.Query()
	query := seald.RecordQuery{Status: seald.Status(q.Get("status")), State: seald.State(q.Get("state")),
		After: q.Get("after"), Limit: pageSize + 1}
	from, to := strings.TrimSpace(q.Get("from")), strings.TrimSpace(q.Get("to"))
	var err error
	if query.Since, err = day(from, "from"); err == nil {
		query.Until, err = day(to, "to")
	}
	if !query.Until.IsZero() {
		query.Until = query.Until.AddDate(0, 0, 1) // the "to" day is included
	}
	var page *seald.RecordPage
	if err == nil {
		page, err = c.Service.ListRecords(r.Context(), r.caller, query)
	}
	if err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	rs := page.Records
	v := recordsView{Records: rs, Status: string(query.Status), State: string(query.State), From: from, To: to,
		Statuses: []seald.Status{seald.StatusActive, seald.StatusSuspended, seald.StatusRevoked}, States: seald.States}
	link := func(after string) string {
		u := url.Values{}
		if v.Status != "" {
			u.Set("status", v.Status)
		}
		if v.State != "" {
			u.Set("state", v.State)
		}
		if v.From != "" {
			u.Set("from", v.From)
		}
		if v.To != "" {
			u.Set("to", v.To)
		}
		if after != "" {
			u.Set("after", after)
		}
		if len(u) == 0 {
			return "/console/records"
		}
		return "/console/records?" + u.Encode()
	}
	switch {
	case len(rs) > pageSize:
		v.Records = rs[:pageSize]
		v.Next = link(rs[pageSize-1].Reference)
	case page.Resume != "":
		v.Resume, v.ResumeCreated, v.Walked = link(page.Resume), page.ResumeCreated, thousands(seald.ListWalk)
	}
	if query.After != "" {
		v.First = link("")
	}
	c.render(w, r.Request, http.StatusOK, recordsPage, c.page(r, "Records", v))
}

// thousands writes n with a comma between each group of three digits: 5,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// lookup reads what was typed into the search box: a reference, a hash, a token id (on the project's
// network) or a CID.
func lookup(q string, network string) seald.Lookup {
	switch {
	case seald.ParseReference(q) == nil:
		return seald.Lookup{Reference: q}
	case proof.IsHash(strings.ToLower(q)):
		return seald.Lookup{Hash: strings.ToLower(q)}
	case strings.Trim(q, "0123456789") == "":
		return seald.Lookup{Network: network, TokenID: q}
	}
	return seald.Lookup{CID: strings.TrimPrefix(q, "ipfs://")}
}

// search finds one of the project's records by what the caller has of it and opens its page.
func (c *Console) search(w http.ResponseWriter, r *request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if q == "" {
		redirect(w, r.Request, "/console/records")
		return
	}
	v, err := c.Service.Verify(r.Context(), r.caller, lookup(q, r.caller.Project.Network))
	if err == nil && v.Record.BusinessID != r.caller.Business.BusinessID {
		err = seald.Errorf(seald.ENOTFOUND, "no record of this business matches") // another business's PUBLIC record
	}
	if seald.ErrorCode(err) == seald.ENOTFOUND {
		p := c.page(r, "Not found", errorView{Message: "No record of this business has the reference, hash, CID or token id " + q + ".",
			Back: "/console/records"})
		p.Query = q
		c.render(w, r.Request, http.StatusNotFound, errorPage, p)
		return
	}
	if err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	redirect(w, r.Request, recordURL(v.Record.Reference))
}

func recordURL(ref string) string { return "/console/records/" + url.PathEscape(ref) }

// recordView is the body of a record's page.
type recordView struct {
	Record       *seald.Record
	Verification *seald.Verification
	History      []*seald.StatusChange
	Timeline     []milestone
	Unrecorded   bool // a state of the timeline has no time
	PublicLink   string
	Done         string // what the last action did, shown once after its redirect
	Error        string // why the last action was refused
}

// done are the notices an action's redirect may ask for, by name: the page never echoes text from the URL.
var done = map[string]string{
	"suspended": "The record is SUSPENDED.",
	"activated": "The record is ACTIVE.",
	"revoked":   "The record is REVOKED. The revocation is being recorded on chain.",
	"erased":    "The record's data is erased.",
	"unchanged": "The record already had that status; nothing changed.",
}

func (c *Console) recordView(r *request, ref string) (*recordView, error) {
	rec, trail, err := c.Service.History(r.Context(), r.caller, ref)
	if err != nil {
		return nil, err
	}
	v, err := c.Service.Verify(r.Context(), r.caller, seald.Lookup{Reference: ref})
	if err != nil {
		return nil, err
	}
	view := &recordView{Record: rec, Verification: v, History: trail, Timeline: timeline(rec),
		PublicLink: c.Service.VerificationLink(ref)}
	for _, m := range view.Timeline {
		view.Unrecorded = view.Unrecorded || m.At.IsZero()
	}
	return view, nil
}

func (c *Console) record(w http.ResponseWriter, r *request) {
	v, err := c.recordView(r, r.PathValue("ref"))
	if err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	v.Done = done[r.URL.Query().Get("done")]
	c.render(w, r.Request, http.StatusOK, recordPage, c.page(r, "Record "+v.Record.Reference, v))
}

// proof downloads the record's proof bundle, the file `seald proof verify` checks offline.
func (c *Console) proof(w http.ResponseWriter, r *request) {
	ref := r.PathValue("ref")
	if _, _, err := c.Service.History(r.Context(), r.caller, ref); err != nil { // the owner's records only
		c.fail(w, r.Request, r, err)
		return
	}
	v, err := c.Service.Verify(r.Context(), r.caller, seald.Lookup{Reference: ref, Proof: true})
	if err == nil && v.Proof == nil {
		err = seald.Errorf(seald.ENOTFOUND, "record %s is not anchored yet", ref)
	}
	if err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	name, b, err := v.Proof.File()
	if err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	staticassets.Attachment(w, name, b)
}

// refuse shows the record's page again with why an action was refused.
func (c *Console) refuse(w http.ResponseWriter, r *request, status int, msg string) {
	v, err := c.recordView(r, r.PathValue("ref"))
	if err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	v.Error = msg
	c.render(w, r.Request, status, recordPage, c.page(r, "Record "+v.Record.Reference, v))
}

// act answers an action's outcome: back to the record's page with a notice, or the refusal.
func (c *Console) act(w http.ResponseWriter, r *request, err error, notice string) {
	switch seald.ErrorCode(err) {
	case "":
		redirect(w, r.Request, recordURL(r.PathValue("ref"))+"?done="+notice)
	case seald.EINVALID:
		c.refuse(w, r, http.StatusBadRequest, seald.ErrorMessage(err))
	case seald.ECONFLICT:
		c.refuse(w, r, http.StatusConflict, seald.ErrorMessage(err))
	default:
		c.fail(w, r.Request, r, err)
	}
}

// changeStatus suspends or activates a record; revocation has its own confirmed form.
func (c *Console) changeStatus(w http.ResponseWriter, r *request) {
	to := r.PostFormValue("status")
	notice := map[string]string{"SUSPENDED": "suspended", "ACTIVE": "activated"}[to]
	if notice == "" {
		c.refuse(w, r, http.StatusBadRequest, "status must be ACTIVE or SUSPENDED here; revoke a record with its Revoke form")
		return
	}
	_, ch, err := c.Service.ChangeStatus(r.Context(), r.caller, r.PathValue("ref"), to, r.PostFormValue("reason"))
	if err == nil && ch == nil {
		notice = "unchanged"
	}
	c.act(w, r, err, notice)
}

// confirmView is the body of the confirmation page of revoke or erase.
type confirmView struct {
	Action string // "revoke" or "erase"
	Record *seald.Record
	Reason string
	Error  string
}

func (c *Console) confirmPage(action string) func(w http.ResponseWriter, r *request) {
	return func(w http.ResponseWriter, r *request) {
		rec, _, err := c.Service.History(r.Context(), r.caller, r.PathValue("ref"))
		if err != nil {
			c.fail(w, r.Request, r, err)
			return
		}
		c.render(w, r.Request, http.StatusOK, confirmTmpl, c.page(r, confirmTitle[action]+" "+rec.Reference,
			confirmView{Action: action, Record: rec}))
	}
}

var confirmTitle = map[string]string{"revoke": "Revoke", "erase": "Erase the data of"}

// confirmed checks the confirmation box and the reason of a revoke or erase form; when either is missing
// the confirmation page is shown again with why.
func (c *Console) confirmed(w http.ResponseWriter, r *request, action string) (reason string, ok bool) {
	reason = strings.TrimSpace(r.PostFormValue("reason"))
	msg := ""
	switch {
	case r.PostFormValue("confirm") != "yes":
		msg = "Tick the box to confirm."
	case reason == "":
		msg = "reason is required: say why (it goes into the audit trail)"
	default:
		return reason, true
	}
	rec, _, err := c.Service.History(r.Context(), r.caller, r.PathValue("ref"))
	if err != nil {
		c.fail(w, r.Request, r, err)
		return "", false
	}
	c.render(w, r.Request, http.StatusBadRequest, confirmTmpl, c.page(r, confirmTitle[action]+" "+rec.Reference,
		confirmView{Action: action, Record: rec, Reason: reason, Error: msg}))
	return "", false
}

func (c *Console) revoke(w http.ResponseWriter, r *request) {
	reason, ok := c.confirmed(w, r, "revoke")
	if !ok {
		return
	}
	_, ch, err := c.Service.ChangeStatus(r.Context(), r.caller, r.PathValue("ref"), string(seald.StatusRevoked), reason)
	notice := "revoked"
	if err == nil && ch == nil {
		notice = "unchanged"
	}
	c.act(w, r, err, notice)
}

func (c *Console) erase(w http.ResponseWriter, r *request) {
	reason, ok := c.confirmed(w, r, "erase")
	if !ok {
		return
	}
	_, _, err := c.Service.Erase(r.Context(), r.caller, r.PathValue("ref"), reason)
	c.act(w, r, err, "erased")
}

// day reads a date filter of the list (YYYY-MM-DD, the browser's date input) as the start of that day in
// UTC, the zone the list's times are shown in; "" is no bound.
func day(s, name string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, seald.Errorf(seald.EINVALID, "%s must be a date as YYYY-MM-DD, not %q", name, s)
	}
	return t, nil
}
