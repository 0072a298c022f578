package console

import (
	"net/http"

	staticassets "seald.dev/seald/internal/assets"
	"seald.dev/seald/internal/httpstatus"

	"seald.dev/seald"
)

// The sealed data of a record, shown and downloaded by its owner as the API's download gives it
// (seald.RecordService.Download): the exact canonical JSON that was hashed, read back from IPFS and decrypted.
// A record sealed with a password needs it here too: the page asks for it in a form (POST, never in a URL),
// and the plain download link refuses without it, as the API does without X-Data-Password.

// dataView is the body of a record's data page.
type dataView struct {
	Record *seald.Record
	Data   string // the canonical JSON; empty until shown
	Error  string
}

// data shows a record's data, or, for a record with a password, the form that asks for it.
func (c *Console) data(w http.ResponseWriter, r *request) {
	rec, _, err := c.Service.History(r.Context(), r.caller, r.PathValue("ref")) // the owner's records only
	if err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	if rec.HasPassword {
		c.showData(w, r, http.StatusOK, dataView{Record: rec})
		return
	}
	c.giveData(w, r, rec, "", false)
}

// dataWithPassword answers the password form: the data shown, or downloaded, or the form again with why.
func (c *Console) dataWithPassword(w http.ResponseWriter, r *request) {
	rec, _, err := c.Service.History(r.Context(), r.caller, r.PathValue("ref"))
	if err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	c.giveData(w, r, rec, r.PostFormValue("password"), r.PostFormValue("as") == "download")
}

// dataFile downloads a record's data as <reference>.json (a record without a password; one with a password
// is refused, as the API refuses a download without X-Data-Password).
func (c *Console) dataFile(w http.ResponseWriter, r *request) {
	rec, _, err := c.Service.History(r.Context(), r.caller, r.PathValue("ref"))
	if err != nil {
		c.fail(w, r.Request, r, err)
		return
	}
	c.giveData(w, r, rec, "", true)
}

func (c *Console) giveData(w http.ResponseWriter, r *request, rec *seald.Record, password string, download bool) {
	b, err := c.Service.Download(r.Context(), r.caller, rec.Reference, password)
	switch {
	case err == nil && download:
		staticassets.Attachment(w, rec.Reference+".json", b)
	case err == nil:
		c.showData(w, r, http.StatusOK, dataView{Record: rec, Data: string(b)})
	case rec.HasPassword && seald.ErrorCode(err) == seald.EUNAUTHORIZED && r.Method == http.MethodPost:
		c.showData(w, r, http.StatusUnauthorized, dataView{Record: rec,
			Error: "That is not the password this record was sealed with (or none was given)."})
	case seald.ErrorCode(err) == seald.EINVALID || seald.ErrorCode(err) == seald.EGONE:
		c.showData(w, r, httpstatus.Of(err), dataView{Record: rec, Error: seald.ErrorMessage(err)})
	default:
		c.fail(w, r.Request, r, err)
	}
}

func (c *Console) showData(w http.ResponseWriter, r *request, status int, v dataView) {
	c.render(w, r.Request, status, dataTmpl, c.page(r, "Data of "+v.Record.Reference, v))
}
