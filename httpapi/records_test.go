package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/httpapi"
	"seald.dev/seald/wire"
)

func TestSeal(t *testing.T) {
	for _, network := range []string{"POLYGON", "EOS"} {
		t.Run(network, func(t *testing.T) {
			a := newAPI(t)
			var got *seald.SealRequest
			a.svc.SealFn = func(_ context.Context, c *seald.Caller, req *seald.SealRequest) (*seald.Record, error) {
				if c.KeyID != owner.KeyID {
					t.Errorf("caller %+v", c)
				}
				got = req
				r := *record
				r.OVI = "ovi-1"
				return &r, nil
			}
			path := "/svc-data/data/authentication/ipfs/sm-" + strings.ToLower(network) + "/email"
			r := a.do("POST", path, `{"data":{"a":1},"to":"a@example.com","cc":"b@example.com","subject":"S","body":"B",`+
				`"is_html":1,"encrypted_reference":true,"password":"pw","unknown":"ignored"}`)
			var res wire.AuthenticationResult
			r.ok(t, http.StatusCreated, &res, "success", "data", "error")
			if res.Reference != ref || res.Hash != hash || res.OVI != "ovi-1" {
				t.Errorf("result %+v", res)
			}
			if loc := r.header.Get("Location"); loc != "/authentication-status/get/status?reference="+ref {
				t.Errorf("Location %q", loc)
			}
			if got.Network != network || string(got.Data) != `{"a":1}` || got.To != "a@example.com" || got.Cc != "b@example.com" ||
				got.Subject != "S" || got.Body != "B" || !got.IsHTML || !got.EncryptedReference || got.Password == nil || *got.Password != "pw" {
				t.Errorf("request %+v", got)
			}
		})
	}
}

func TestSealErrors(t *testing.T) {
	a := newAPI(t)
	a.svc.SealFn = func(_ context.Context, _ *seald.Caller, req *seald.SealRequest) (*seald.Record, error) {
		switch req.To {
		case "full@example.com":
			return nil, seald.Errorf(seald.EOVERLOADED, "100 records are waiting in the pipeline")
		case "down@example.com":
			return nil, &seald.Error{Code: seald.EUNAVAILABLE, Message: "the database is not answering", Err: errBoom}
		}
		return nil, seald.Errorf(seald.EINVALID, "to: %q is not an e-mail address", req.To)
	}
	const path = "/svc-data/data/authentication/ipfs/sm-polygon/email"
	for _, c := range []struct {
		name, body string
		status     int
		msg        string
	}{
		{"empty body", ``, 415, "Content-Type must be application/json"},
		{"blank body", ` `, 400, "the request body is empty; a JSON object is required"},
		{"no data", `{"to":"a@example.com"}`, 400, "data is required"},
		{"null data", `{"data":null}`, 400, "data is required"},
		{"data a string", `{"data":"x"}`, 400, "data must be a JSON object"},
		{"to a number", `{"data":{},"to":1}`, 400, "to must be a string"},
		{"is_html a string", `{"data":{},"is_html":"yes"}`, 400, "is_html must be 0, 1, true or false"},
		{"password a number", `{"data":{},"password":1}`, 400, "password must be a string"},
		{"trailing data", `{"data":{}} {}`, 400, "malformed JSON: data after the object"},
		{"the rules", `{"data":{},"to":"nobody"}`, 400, `to: "nobody" is not an e-mail address`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.body == "" {
				a.do("POST", path, "", "Content-Type: ").plainError(t, c.status, c.msg)
				return
			}
			a.do("POST", path, c.body).plainError(t, c.status, c.msg)
		})
	}
	t.Run("backpressure", func(t *testing.T) {
		r := a.do("POST", path, `{"data":{},"to":"full@example.com"}`)
		r.plainError(t, 503, "100 records are waiting in the pipeline")
		if r.header.Get("Retry-After") != "5" || r.header.Get("X-Seald-Backpressure") != "1" {
			t.Errorf("headers %v", r.header)
		}
	})
	t.Run("unavailable", func(t *testing.T) {
		r := a.do("POST", path, `{"data":{},"to":"down@example.com"}`)
		r.plainError(t, 503, "the database is not answering")
		if r.header.Get("Retry-After") != "1" || r.header.Get("X-Seald-Backpressure") != "" || strings.Contains(r.body, "fire") {
			t.Errorf("headers %v, body %s", r.header, r.body)
		}
	})
	t.Run("wrong method", func(t *testing.T) {
		r := a.do("GET", path, "")
		r.plainError(t, 405, "GET is not allowed here; use POST")
		if r.header.Get("Allow") != "POST" {
			t.Errorf("Allow %q", r.header.Get("Allow"))
		}
	})
}

func TestGenerate(t *testing.T) {
	for _, page := range []bool{false, true} {
		a := newAPI(t, func(s *httpapi.Server) {
			if page {
				s.Page = http.NotFoundHandler()
			}
		})
		a.svc.GenerateFn = func(_ context.Context, _ *seald.Caller, data []byte) (*seald.Record, error) {
			if string(data) != `{"doc":"x"}` {
				t.Errorf("data %s", data)
			}
			r := *record
			r.Reference, r.OVI = "I-"+ref[2:], "ovi-2"
			return &r, nil
		}
		r := a.do("POST", "/svc-file/api/v1/ovi/generator", `{"data":{"doc":"x"}}`)
		var res wire.GeneratorResult
		r.ok(t, 201, &res, "success", "data", "error")
		link := "https://verify.example.test/v/I-" + ref[2:]
		if res.Reference != "I-"+ref[2:] || res.EncryptedOVI != "ovi-2" || res.VerificationLink != link {
			t.Errorf("result %+v", res)
		}
		if want := map[bool]string{true: link + "/qr.svg"}[page]; res.QRCode != want {
			t.Errorf("page %v: qr_code %q, want %q", page, res.QRCode, want)
		}
		if r.header.Get("Location") != "/authentication-status/get/status?reference=I-"+ref[2:] {
			t.Errorf("Location %q", r.header.Get("Location"))
		}
	}
	newAPI(t).do("POST", "/svc-file/api/v1/ovi/generator", `{"data":1}`).plainError(t, 400, "data must be a JSON object")
}

func TestStatus(t *testing.T) {
	a := newAPI(t)
	a.svc.StatusFn = func(_ context.Context, _ *seald.Caller, reference string) (*seald.Record, error) {
		if reference != ref {
			return nil, seald.Errorf(seald.ENOTFOUND, "no record with reference %s", reference)
		}
		r := *record
		r.State, r.ErrorType, r.ErrorMessage, r.TokenID, r.CID = seald.StateFailed, "email", "mailbox full", 42, "bafyc"
		return &r, nil
	}
	var s wire.StatusRecord
	a.do("GET", "/authentication-status/get/status?reference="+ref, "").ok(t, 200, &s, "success", "data", "error")
	if s.Reference != ref || s.State != "FAILED" || s.ErrorMessage == nil || *s.ErrorMessage != "mailbox full" ||
		s.TokenID != "42" || s.CID != "bafyc" || s.UpdatedTime != "2026-01-02T03:04:05.006Z" {
		t.Errorf("status %+v", s)
	}
	a.do("GET", "/authentication-status/get/status", "").plainError(t, 400, "query parameter reference is required")
	a.do("GET", "/authentication-status/get/status?reference=D-other", "").plainError(t, 404, "no record with reference D-other")
}

func TestUpdateStatus(t *testing.T) {
	a := newAPI(t)
	a.svc.ChangeStatusFn = func(_ context.Context, _ *seald.Caller, reference, status, reason string) (*seald.Record, *seald.StatusChange, error) {
		if status == "BOGUS" {
			return nil, nil, seald.Errorf(seald.EINVALID, "status must be ACTIVE, SUSPENDED or REVOKED")
		}
		r := *record
		r.Status = seald.Status(status)
		if reason == "again" {
			return &r, nil, nil
		}
		return &r, &seald.StatusChange{Reference: reference, From: seald.StatusActive, To: seald.Status(status), Reason: reason}, nil
	}
	var res wire.StatusChange
	a.do("PUT", "/authentication-status/update/status", `{"reference":"`+ref+`","status":"revoked","reason":"fraud"}`).
		ok(t, 200, &res, "success", "data", "error")
	if res.Reference != ref || res.Status != "REVOKED" || res.Msg != "status changed from ACTIVE to REVOKED" {
		t.Errorf("answer %+v", res)
	}
	a.do("PUT", "/authentication-status/update/status", `{"reference":"`+ref+`","status":"SUSPENDED","reason":"again"}`).
		ok(t, 200, &res, "success", "data", "error")
	if res.Msg != "status unchanged: already SUSPENDED" {
		t.Errorf("msg %q", res.Msg)
	}
	for body, msg := range map[string]string{
		`{"status":"REVOKED"}`:                                     "reference is required",
		`{"reference":"` + ref + `"}`:                              "status is required",
		`{"reference":"` + ref + `","status":3}`:                   "status must be a string",
		`{"reference":"` + ref + `","status":"ACTIVE","reason":1}`: "reason must be a string",
		`{"reference":"` + ref + `","status":"bogus"}`:             "status must be ACTIVE, SUSPENDED or REVOKED",
	} {
		a.do("PUT", "/authentication-status/update/status", body).plainError(t, 400, msg)
	}
}

func TestHistory(t *testing.T) {
	a := newAPI(t)
	at := created.Add(time.Hour)
	a.svc.HistoryFn = func(_ context.Context, _ *seald.Caller, reference string) (*seald.Record, []*seald.StatusChange, error) {
		return record, []*seald.StatusChange{
			{From: seald.StatusActive, To: seald.StatusSuspended, Actor: "key_1", Reason: "check", At: at},
			{Actor: seald.ActorOperator, Reason: "asked", At: at, Action: seald.ActionErase},
		}, nil
	}
	var h wire.History
	a.do("GET", "/authentication-status/history?reference="+ref, "").ok(t, 200, &h, "success", "data", "error")
	if h.Reference != ref || h.Status != "ACTIVE" || len(h.Changes) != 2 || h.Changes[0].Action != seald.ActionStatus ||
		h.Changes[0].From != "ACTIVE" || h.Changes[0].Time != "2026-01-02T04:04:05.006Z" || h.Changes[1].Action != seald.ActionErase {
		t.Errorf("history %+v", h)
	}
	a.do("GET", "/authentication-status/history", "").plainError(t, 400, "query parameter reference is required")
}

func TestErase(t *testing.T) {
	a := newAPI(t)
	a.svc.EraseFn = func(_ context.Context, _ *seald.Caller, reference, reason string) (*seald.Record, bool, error) {
		if reason == "" {
			return nil, false, seald.Errorf(seald.EINVALID, "reason is required")
		}
		r := *record
		r.ErasedAt = created.Add(time.Minute)
		return &r, reason == "first", nil
	}
	var e wire.Erasure
	a.do("POST", "/authentication/erase", `{"reference":"`+ref+`","reason":"first"}`).ok(t, 200, &e, "success", "data", "error")
	if e.Reference != ref || e.ErasedTime != "2026-01-02T03:05:05.006Z" || !strings.HasPrefix(e.Msg, "data erased") {
		t.Errorf("erasure %+v", e)
	}
	a.do("POST", "/authentication/erase", `{"reference":"`+ref+`","reason":"again"}`).ok(t, 200, &e, "success", "data", "error")
	if e.Msg != "data already erased at 2026-01-02T03:05:05.006Z; nothing changed" {
		t.Errorf("msg %q", e.Msg)
	}
	a.do("POST", "/authentication/erase", `{"reference":"`+ref+`"}`).plainError(t, 400, "reason is required")
	a.do("POST", "/authentication/erase", `{"reason":"x"}`).plainError(t, 400, "reference is required")
}

func TestDownload(t *testing.T) {
	a := newAPI(t, func(s *httpapi.Server) { s.AuthFailuresPerMinute = 2 })
	a.svc.DownloadFn = func(_ context.Context, _ *seald.Caller, reference, password string) ([]byte, error) {
		switch {
		case reference == "D-erased":
			return nil, seald.Errorf(seald.EGONE, "the data of record %s was erased", reference)
		case password != "pw":
			return nil, seald.ErrWrongPassword
		}
		return []byte(`{"a":1}`), nil
	}
	r := a.do("GET", "/svc-data/data/download?reference="+ref, "", "X-Data-Password: pw")
	r.ok(t, 200, nil, "success", "data", "error")
	if r.body != `{"success":true,"data":{"a":1},"error":null}`+"\n" {
		t.Errorf("body %s", r.body)
	}
	a.do("GET", "/svc-data/data/download?reference=D-erased", "").plainError(t, 410, "was erased")
	a.do("GET", "/svc-data/data/download?reference="+ref, "", "X-Data-Password: a", "X-Data-Password: b").
		plainError(t, 400, "the X-Data-Password header is given more than once")
	for range 2 {
		a.do("GET", "/svc-data/data/download?reference="+ref, "", "X-Data-Password: wrong").
			plainError(t, 401, "the X-Data-Password header is missing or does not match")
	}
	// Past its budget of wrong passwords the record is 429 with Retry-After, even with the right one.
	r = a.do("GET", "/svc-data/data/download?reference="+ref, "", "X-Data-Password: pw")
	r.plainError(t, 429, "too many wrong passwords for this record")
	if r.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
}
