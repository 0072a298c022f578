package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"seald.dev/seald"
)

// Sealing from the browser: paste a JSON object, or JSON Lines (one object a line) for many, or upload a
// .json or .jsonl file; with an e-mail address the records go through the project's pipeline with e-mail
// (and an optional download password), without one they are generator records (I-, no e-mail), as the API's
// two operations do.

const (
	// sealLimit bounds a seal form's body, upload included.
	sealLimit = 2 << 20
	// maxSealRecords bounds how many records one form seals.
	maxSealRecords = 100
)

// sealView is the body of the seal page.
type sealView struct {
	Data, To string
	Error    string
}

func (c *Console) sealPage(w http.ResponseWriter, r *request) {
	c.render(w, r.Request, http.StatusOK, sealTmpl, c.page(r, "Seal", sealView{}))
}

// objects splits the input into JSON objects: one object (over as many lines as it likes), or JSON Lines
// (one object a line, blank lines skipped). Input whose first line is not a whole JSON value is read as one
// object, so that a syntax error in a pasted, indented object is reported where it is, by line and column
// of the whole input, and not as "line 1 is not a JSON object".
func objects(in []byte) ([][]byte, error) {
	in = bytes.TrimSpace(in)
	if len(in) == 0 {
		return nil, seald.Errorf(seald.EINVALID, "data is required: paste a JSON object or JSON Lines, or choose a file")
	}
	first, _, _ := bytes.Cut(in, []byte("\n"))
	if json.Valid(in) || !json.Valid(bytes.TrimSpace(first)) {
		if err := syntaxError(in, 0); err != nil {
			return nil, err
		}
		if in[0] != '{' {
			return nil, seald.Errorf(seald.EINVALID, "data must be a JSON object (or JSON Lines, one object a line)")
		}
		return [][]byte{in}, nil
	}
	var out [][]byte
	for i, line := range bytes.Split(in, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if err := syntaxError(line, i); err != nil {
			return nil, err
		}
		if line[0] != '{' {
			return nil, seald.Errorf(seald.EINVALID, "line %d is not a JSON object: JSON Lines holds one object a line", i+1)
		}
		out = append(out, line)
	}
	if len(out) > maxSealRecords {
		return nil, seald.Errorf(seald.EINVALID, "%d records at once; seal at most %d from the console, or use the API", len(out), maxSealRecords)
	}
	return out, nil
}

// syntaxError is nil for valid JSON, else the decoder's complaint with where it is: the line (counted from
// line0, the lines before this text) and column (in characters, from 1) of the byte it stopped at.
func syntaxError(text []byte, line0 int) error {
	var v json.RawMessage
	err := json.Unmarshal(text, &v)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return seald.Errorf(seald.EINVALID, "data is not valid JSON: %v", err)
	}
	at := int(se.Offset)
	if at > 0 && at <= len(text) && se.Error() != "unexpected end of JSON input" {
		at-- // the offset is just past the character that was refused
	}
	before := text[:min(at, len(text))]
	line := line0 + bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return seald.Errorf(seald.EINVALID, "JSON syntax error at line %d, column %d: %s", line, col, se.Error())
}

// seal seals what the form holds, then shows the new references and their progress (POST-redirect-GET).
func (c *Console) seal(w http.ResponseWriter, r *request) {
	v := sealView{Data: r.PostFormValue("data"), To: strings.TrimSpace(r.PostFormValue("to"))}
	refuse := func(status int, msg string) {
		v.Error = msg
		c.render(w, r.Request, status, sealTmpl, c.page(r, "Seal", v))
	}
	in := []byte(v.Data)
	if f, _, err := r.FormFile("file"); err == nil {
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			refuse(http.StatusBadRequest, "the file could not be read")
			return
		}
		if len(bytes.TrimSpace(b)) > 0 {
			in = b
		}
	} else if !errors.Is(err, http.ErrMissingFile) && !errors.Is(err, http.ErrNotMultipart) {
		refuse(http.StatusRequestEntityTooLarge, fmt.Sprintf("the form is larger than %d MiB", sealLimit>>20))
		return
	}
	datas, err := objects(in)
	if err != nil {
		refuse(http.StatusBadRequest, seald.ErrorMessage(err))
		return
	}
	var password *string
	if pw := r.PostFormValue("password"); pw != "" {
		if v.To == "" {
			refuse(http.StatusBadRequest, "a password protects the download of a record sealed with an e-mail: give an e-mail address, or leave the password empty")
			return
		}
		password = &pw
	}
	// The request spent one of the key's budget; a seal of n records spends n in all, as n API calls would.
	if c.Limits != nil && len(datas) > 1 {
		if after, err := c.Limits.Spend(r.caller, len(datas)-1); err != nil {
			w.Header().Set("Retry-After", strconv.Itoa(after))
			refuse(http.StatusTooManyRequests, seald.ErrorMessage(err)+" Nothing was sealed.")
			return
		}
	}
	var refs []string
	for i, data := range datas {
		var rec *seald.Record
		if v.To != "" {
			rec, err = c.Service.Seal(r.Context(), r.caller, &seald.SealRequest{Data: data, To: v.To, Password: password})
		} else {
			rec, err = c.Service.Generate(r.Context(), r.caller, data)
		}
		if err != nil {
			msg := seald.ErrorMessage(err)
			if len(datas) > 1 {
				msg = fmt.Sprintf("record %d: %s", i+1, msg)
				if len(refs) > 0 {
					msg += fmt.Sprintf(" (the %d before it are sealed: %s)", len(refs), strings.Join(refs, ", "))
				}
			}
			switch seald.ErrorCode(err) {
			case seald.EINVALID, seald.ETOOLARGE:
				refuse(http.StatusBadRequest, msg)
			case seald.EOVERLOADED, seald.ERATELIMIT, seald.EUNAVAILABLE:
				w.Header().Set("Retry-After", "5")
				refuse(http.StatusServiceUnavailable, msg)
			default:
				c.fail(w, r.Request, r, err)
			}
			return
		}
		refs = append(refs, rec.Reference)
	}
	redirect(w, r.Request, "/console/sealed?"+url.Values{"ref": refs}.Encode())
}

// sealedView is the body of the page of newly sealed records.
type sealedView struct {
	Records []*seald.Record
	Done    bool // every record is COMPLETED or FAILED
}

// sealed shows records' progress; console.js updates it in place until each is COMPLETED or FAILED.
func (c *Console) sealed(w http.ResponseWriter, r *request) {
	refs := r.URL.Query()["ref"]
	if len(refs) == 0 || len(refs) > maxSealRecords {
		redirect(w, r.Request, "/console/seal")
		return
	}
	v := sealedView{Done: true}
	for _, ref := range refs {
		rec, err := c.Service.Status(r.Context(), r.caller, ref)
		if err != nil {
			c.fail(w, r.Request, r, err)
			return
		}
		v.Records = append(v.Records, rec)
		if rec.State != seald.StateCompleted && rec.State != seald.StateFailed {
			v.Done = false
		}
	}
	c.render(w, r.Request, http.StatusOK, sealedTmpl, c.page(r, "Sealed", v))
}
