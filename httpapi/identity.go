package httpapi

import (
	"encoding/json"
	"net/http"

	"seald.dev/seald"
	"seald.dev/seald/didweb"
	"seald.dev/seald/wire"
)

// The domain identity of the caller's business (issue 41): POST /tenant/identity sets the domain (or rotates
// the key), POST /tenant/identity/check fetches the published DID document now, GET /tenant/identity shows
// where it stands.

func (s *Server) setIdentity(w http.ResponseWriter, r *http.Request) {
	b, err := decode(r, s.BodyLimit)
	if err == nil {
		err = b.only("domain", "rotate_key")
	}
	var req seald.IdentityRequest
	if err == nil {
		req.Domain, err = b.requiredStr("domain")
	}
	if err == nil {
		req.RotateKey, err = b.flag("rotate_key")
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	id, doc, err := s.Service.SetIdentity(r.Context(), callerOf(r.Context()), req)
	s.writeIdentity(w, r, id, doc, err)
}

func (s *Server) checkIdentity(w http.ResponseWriter, r *http.Request) {
	id, doc, err := s.Service.CheckIdentity(r.Context(), callerOf(r.Context()))
	s.writeIdentity(w, r, id, doc, err)
}

func (s *Server) getIdentity(w http.ResponseWriter, r *http.Request) {
	id, doc, err := s.Service.IdentityOf(r.Context(), callerOf(r.Context()))
	s.writeIdentity(w, r, id, doc, err)
}

func (s *Server) writeIdentity(w http.ResponseWriter, r *http.Request, id *seald.Identity, doc *didweb.Document, err error) {
	if err == nil {
		var out wire.Identity
		if out, err = identityOf(id, doc); err == nil {
			writeOK(w, r, http.StatusOK, out)
			return
		}
	}
	s.writeError(w, r, err)
}

// identityOf is the API's form of an identity.
func identityOf(id *seald.Identity, doc *didweb.Document) (wire.Identity, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return wire.Identity{}, err
	}
	u, err := didweb.DocumentURL(id.DID)
	if err != nil {
		return wire.Identity{}, err
	}
	out := wire.Identity{BusinessID: id.BusinessID, Domain: id.Domain, DID: id.DID, State: string(id.State),
		Reason: id.Reason, DocumentURL: u, Document: b}
	if id.VerifiedAt != nil {
		out.VerifiedAt = formatTime(*id.VerifiedAt)
	}
	if id.CheckedAt != nil {
		out.CheckedAt = formatTime(*id.CheckedAt)
	}
	return out, nil
}
