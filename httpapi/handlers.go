package httpapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"seald.dev/seald/wire"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

func errMethod(method string, allow []string) error {
	return &seald.Error{Code: codeMethod, Message: method + " is not allowed here; use " + strings.Join(allow, " or ")}
}

func errNoRoute(path string) error {
	return seald.Errorf(seald.ENOTFOUND, "no such operation: %s", path)
}

// query returns a required, non-empty query parameter.
func query(r *http.Request, name string) (string, error) {
	v := strings.TrimSpace(queryValue(r.URL.RawQuery, name))
	if v == "" {
		return "", seald.Errorf(seald.EINVALID, "query parameter %s is required", name)
	}
	return v, nil
}

// queryValue is url.ParseQuery(raw).Get(name) without building the map of every parameter, which was most
// of a verification's allocations outside the store read: the first value of name, "" when none. It skips
// what ParseQuery skips (a pair with a semicolon, a key or value that does not unescape), so that both
// always agree (FuzzQueryValue); a long query is left to ParseQuery itself.
func queryValue(raw, name string) string {
	if strings.Count(raw, "&") >= 1000 {
		// ParseQuery refuses more than a limit of parameters (10,000, or GODEBUG's): let it decide.
		q, _ := url.ParseQuery(raw)
		return q.Get(name)
	}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" || strings.Contains(pair, ";") {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if k != name && !strings.ContainsAny(k, "%+") {
			continue // cannot unescape to name
		}
		key, err := url.QueryUnescape(k)
		if err != nil || key != name {
			continue
		}
		if v, err = url.QueryUnescape(v); err != nil {
			continue
		}
		return v
	}
	return ""
}

func (s *Server) verify(w http.ResponseWriter, r *http.Request, l seald.Lookup) {
	l.Proof = wantProof(r)
	v, err := s.Service.Verify(r.Context(), callerOf(r.Context()), l)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res := s.verificationResult(v)
	if l.Proof {
		res.Proof = (*wire.Proof)(v.Proof) // null until the record is anchored
		writeOK(w, r, http.StatusOK, res)
		return
	}
	s.writeVerification(w, r, res)
}

func wantProof(r *http.Request) bool {
	// Most verifications ask for no proof: skip parsing the query a second time when it cannot name one
	// (a name can only be spelled without "proof" when percent-encoded).
	if q := r.URL.RawQuery; !strings.Contains(q, "proof") && !strings.Contains(q, "%") {
		return false
	}
	switch queryValue(r.URL.RawQuery, "proof") {
	case "1", "true":
		return true
	}
	return false
}

func (s *Server) verifyTokenID(w http.ResponseWriter, r *http.Request) {
	id, err := query(r, "token_id")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	network, err := seald.ParseNetwork(queryValue(r.URL.RawQuery, "blockchain"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.verify(w, r, seald.Lookup{TokenID: id, Network: network})
}

func (s *Server) verifyReference(w http.ResponseWriter, r *http.Request) {
	ref, err := query(r, "reference")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.verify(w, r, seald.Lookup{Reference: ref})
}

func (s *Server) verifyCID(w http.ResponseWriter, r *http.Request) {
	cid, err := query(r, "cid")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if len(cid) > 200 || s.ValidCID != nil && !s.ValidCID(cid) {
		s.writeError(w, r, seald.Errorf(seald.EINVALID, "cid is not a valid IPFS content identifier"))
		return
	}
	if s.CanonicalCID != nil {
		// Every encoding of a stored CID (CIDv0, another multibase) finds its record.
		cid = s.CanonicalCID(cid)
	}
	s.verify(w, r, seald.Lookup{CID: cid})
}

func (s *Server) verifyHash(w http.ResponseWriter, r *http.Request) {
	h, err := query(r, "hash")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	h = strings.ToLower(strings.TrimPrefix(h, "0x"))
	if !proof.IsHash(h) {
		s.writeError(w, r, seald.Errorf(seald.EINVALID, "hash must be 64 hex digits (SHA-256)"))
		return
	}
	s.verify(w, r, seald.Lookup{Hash: h})
}

func (s *Server) verifyData(w http.ResponseWriter, r *http.Request) {
	b, err := decode(r, s.BodyLimit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	data, err := b.object("data")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.verify(w, r, seald.Lookup{Data: data})
}

func (s *Server) verifyOVI(w http.ResponseWriter, r *http.Request) {
	ovi, err := query(r, "ovi")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.verify(w, r, seald.Lookup{OVI: ovi})
}

func (s *Server) sealOn(network string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := decode(r, s.BodyLimit)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		req, err := sealRequest(b, network)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		rec, err := s.Service.Seal(r.Context(), callerOf(r.Context()), req)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		w.Header().Set("Location", "/authentication-status/get/status?reference="+url.QueryEscape(rec.Reference))
		writeOK(w, r, http.StatusCreated, wire.AuthenticationResult{Reference: rec.Reference, Hash: rec.Hash, OVI: rec.OVI})
	}
}

// sealRequest checks the members' JSON types; their meaning is the Service's to check.
func sealRequest(b body, network string) (*seald.SealRequest, error) {
	data, err := b.object("data")
	if err != nil {
		return nil, err
	}
	req := &seald.SealRequest{Data: data, Network: network}
	for _, m := range []struct {
		name string
		dst  *string
	}{{"to", &req.To}, {"cc", &req.Cc}, {"subject", &req.Subject}, {"body", &req.Body}} {
		if *m.dst, _, err = b.str(m.name); err != nil {
			return nil, err
		}
	}
	if req.IsHTML, err = b.flag("is_html"); err != nil {
		return nil, err
	}
	if req.EncryptedReference, err = b.flag("encrypted_reference"); err != nil {
		return nil, err
	}
	if pw, ok, err := b.str("password"); err != nil {
		return nil, err
	} else if ok {
		req.Password = &pw
	}
	return req, nil
}

func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	ref, err := query(r, "reference")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rec, err := s.Service.Status(r.Context(), callerOf(r.Context()), ref)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeOK(w, r, http.StatusOK, statusRecord(rec))
}

// updateTenant changes the caller's business and project details: the members given, others unchanged.
func (s *Server) updateTenant(w http.ResponseWriter, r *http.Request) {
	b, err := decode(r, s.BodyLimit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	c := callerOf(r.Context())
	if c == nil || c.Business == nil || c.Project == nil {
		s.writeError(w, r, seald.ErrNoCaller)
		return
	}
	u := seald.TenantUpdate{BusinessID: c.Business.BusinessID}
	known := map[string]**string{"name": &u.Name, "description": &u.Description, "logo": &u.Logo, "website": &u.Website,
		"project_name": &u.ProjectName, "project_description": &u.ProjectDescription, "project_logo": &u.ProjectLogo,
		"retain": &u.Retain}
	for name := range b {
		if name == "attach_credential" { // a flag; null leaves it as it is
			v, err := b.flag(name)
			if err != nil {
				s.writeError(w, r, err)
				return
			}
			if !isNull(b[name]) {
				u.AttachCredential = &v
			}
			continue
		}
		dst, ok := known[name]
		if !ok {
			s.writeError(w, r, seald.Errorf(seald.EINVALID, "unknown member %q: give name, description, logo, website, project_name, project_description, project_logo, retain or attach_credential", name))
			return
		}
		v, present, err := b.str(name)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if present {
			*dst = &v
		}
	}
	if u.ProjectName != nil || u.ProjectDescription != nil || u.ProjectLogo != nil || u.Retain != nil || u.AttachCredential != nil {
		u.ProjectID = c.Project.ProjectID
	}
	if len(b) == 0 {
		s.writeError(w, r, seald.Errorf(seald.EINVALID, "nothing to change: give name, description, logo, website, project_name, project_description, project_logo, retain or attach_credential"))
		return
	}
	biz, proj, err := s.Service.UpdateTenant(r.Context(), c, u)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if proj == nil {
		proj = c.Project
	}
	writeOK(w, r, http.StatusOK, wire.Owner{
		Business: wire.Business{ID: biz.ID, BusinessID: biz.BusinessID, Name: biz.Name, Description: biz.Description,
			Logo: biz.Logo, Website: biz.Website, DateRegistered: formatTime(biz.DateRegistered)},
		ProjectID: proj.ProjectID,
		Project: wire.Project{ID: proj.ID, ProjectID: proj.ProjectID, Name: proj.Name, Description: proj.Description,
			Logo: proj.Logo, Privacy: string(proj.Privacy), BusinessID: proj.BusinessID, Retain: seald.FormatRetention(proj.Retain),
			AttachCredential: &proj.AttachCredential},
		BusinessID: biz.BusinessID,
	})
}

// history answers a record's audit trail to its owner.
func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	ref, err := query(r, "reference")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rec, trail, err := s.Service.History(r.Context(), callerOf(r.Context()), ref)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	h := wire.History{Reference: rec.Reference, Status: string(rec.Status), Changes: []wire.HistoryChange{}}
	for _, c := range trail {
		h.Changes = append(h.Changes, wire.HistoryChange{Time: formatTime(c.At), From: string(c.From), To: string(c.To),
			Actor: c.Actor, Reason: c.Reason, Action: cmpOr(c.Action, seald.ActionStatus)})
	}
	writeOK(w, r, http.StatusOK, h)
}

func (s *Server) generate(w http.ResponseWriter, r *http.Request) {
	b, err := decode(r, s.BodyLimit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	data, err := b.object("data")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rec, err := s.Service.Generate(r.Context(), callerOf(r.Context()), data)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	link := s.Service.VerificationLink(rec.Reference)
	res := wire.GeneratorResult{Reference: rec.Reference, EncryptedOVI: rec.OVI, VerificationLink: link}
	if s.Page != nil {
		res.QRCode = link + "/qr.svg"
	}
	w.Header().Set("Location", "/authentication-status/get/status?reference="+url.QueryEscape(rec.Reference))
	writeOK(w, r, http.StatusCreated, res)
}

func (s *Server) updateStatus(w http.ResponseWriter, r *http.Request) {
	b, err := decode(r, s.BodyLimit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ref, err := b.requiredStr("reference")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	st, err := b.requiredStr("status")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	reason, _, err := b.str("reason")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// The message tells the change this request made, as the store made it: read before and after
	// separately, a concurrent change could be reported as this one.
	rec, change, err := s.Service.ChangeStatus(r.Context(), callerOf(r.Context()), ref, strings.ToUpper(st), reason)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	msg := "status unchanged: already " + string(rec.Status)
	if change != nil {
		msg = "status changed from " + string(change.From) + " to " + string(change.To)
	}
	writeOK(w, r, http.StatusOK, wire.StatusChange{Reference: rec.Reference, Status: string(rec.Status), Msg: msg})
}

// erase erases a record's data for its owner: its data key and stored copy go, its proof stays.
func (s *Server) erase(w http.ResponseWriter, r *http.Request) {
	b, err := decode(r, s.BodyLimit)
	if err == nil {
		err = b.only("reference", "reason") // erasure cannot be undone: a request it does not understand is refused
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ref, err := b.requiredStr("reference")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	reason, _, err := b.str("reason")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rec, erased, err := s.Service.Erase(r.Context(), callerOf(r.Context()), ref, reason)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	msg := "data already erased at " + formatTime(rec.ErasedAt) + "; nothing changed"
	if erased {
		msg = "data erased: its key is destroyed and its stored copy and e-mail are being deleted; the proof still verifies"
	}
	writeOK(w, r, http.StatusOK, wire.Erasure{Reference: rec.Reference, Status: string(rec.Status),
		IsDataDownloadable: rec.Downloadable, ErasedTime: formatTime(rec.ErasedAt), Msg: msg})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (s *Server) download(w http.ResponseWriter, r *http.Request) {
	s.passwordGuarded(w, r, func(ctx context.Context, c *seald.Caller, ref, password string) (any, error) {
		data, err := s.Service.Download(ctx, c, ref, password)
		return rawJSON(data), err
	})
}

// disclosure gives a record's owner its selective-disclosure package (docs/disclosure.md). The package holds
// the data, so a record's password guards it as it guards the download, with the same throttle.
func (s *Server) disclosure(w http.ResponseWriter, r *http.Request) {
	s.passwordGuarded(w, r, func(ctx context.Context, c *seald.Caller, ref, password string) (any, error) {
		return s.Service.Disclosure(ctx, c, ref, password)
	})
}

// passwordGuarded answers an owner's read of a record's data (reference=, X-Data-Password at most once) with
// what read gives. Wrong passwords are throttled per record and per key before any hashing (each takes
// 64 MiB): past its budget, a record or key is answered 429 until it refills.
func (s *Server) passwordGuarded(w http.ResponseWriter, r *http.Request,
	read func(ctx context.Context, c *seald.Caller, ref, password string) (any, error)) {
	ref, err := query(r, "reference")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if len(r.Header.Values("X-Data-Password")) > 1 {
		s.writeError(w, r, seald.Errorf(seald.EINVALID, "the X-Data-Password header is given more than once; send it once"))
		return
	}
	c := callerOf(r.Context())
	if c == nil {
		s.writeError(w, r, seald.ErrNoCaller)
		return
	}
	for _, k := range []string{"record " + ref, "key " + c.KeyID} {
		if ok, after := s.passwordFailures.allowed(k); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(after))
			s.writeError(w, r, seald.Errorf(seald.ERATELIMIT, "too many wrong passwords for this %s; try again later", strings.Fields(k)[0]))
			return
		}
	}
	out, err := read(r.Context(), c, ref, r.Header.Get("X-Data-Password"))
	if err != nil {
		if errors.Is(err, seald.ErrWrongPassword) {
			s.passwordFailures.fail("record " + ref)
			s.passwordFailures.fail("key " + c.KeyID)
		}
		s.writeError(w, r, err)
		return
	}
	writeOK(w, r, http.StatusOK, out)
}

// rawJSON is canonical JSON passed through as it is.
type rawJSON []byte

func (j rawJSON) MarshalJSON() ([]byte, error) { return j, nil }

func (s *Server) publicKey(w http.ResponseWriter, r *http.Request) {
	writeOK(w, r, http.StatusOK, wire.PublicKey{
		Algorithm: "Ed25519",
		PublicKey: base64.StdEncoding.EncodeToString(s.Service.PublicKey()),
	})
}

// batchManifest serves the manifest of the confirmed batch that holds a token, for anyone, as a bare
// document (no envelope), like the trust root: a file that auditors keep and pass to `seald proof verify
// --batch`. Errors are the plain envelope, 404 for anything that names no confirmed batch.
func (s *Server) batchManifest(w http.ResponseWriter, r *http.Request) {
	m, err := s.Service.BatchManifest(r.Context(), r.PathValue("network"), r.PathValue("token_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(append(b, '\n'))
}

// trustRoot serves the issuer's trust root as a bare document, not in an envelope: it is a file that
// verifiers keep and pass to `seald proof verify --trust`.
func (s *Server) trustRoot(w http.ResponseWriter, r *http.Request) {
	b, err := json.MarshalIndent(s.Service.TrustRoot(), "", "  ")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(append(b, '\n'))
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeOK(w, r, http.StatusOK, map[string]string{"status": "alive"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	checks := map[string]string{}
	ok := true
	if s.Ready != nil {
		for name, err := range s.Ready(r) {
			if err != nil {
				ok = false
				checks[name] = err.Error()
			} else {
				checks[name] = "ok"
				// A chain is named, so that a development chain says so.
				if ch, found := s.Service.Chain(strings.ToUpper(strings.TrimPrefix(name, "chain_"))); found && strings.HasPrefix(name, "chain_") {
					checks[name] = "ok: " + ch.Name()
				}
			}
		}
	}
	status := http.StatusOK
	if !ok {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, plainBody{Success: ok, Data: checks})
}
