package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"seald.dev/seald"
)

// credentialsOff is the answer of the credential operations of a server without a publisher.
var credentialsOff = seald.Errorf(seald.ENOTFOUND, "this service does not issue credentials")

// credential gives a record's owner its credential; it holds the data, so it is guarded as the download is.
func (s *Server) credential(w http.ResponseWriter, r *http.Request) {
	if s.Credentials == nil {
		s.writeError(w, r, credentialsOff)
		return
	}
	format := r.URL.Query().Get("format")
	s.passwordGuarded(w, r, func(ctx context.Context, c *seald.Caller, ref, password string) (any, error) {
		return s.Credentials.Credential(ctx, c, ref, password, format)
	})
}

// publicDocument writes a public document verifiers fetch, which their caches may keep for maxAge seconds.
func publicDocument(w http.ResponseWriter, contentType string, maxAge int, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "public, max-age="+strconv.Itoa(maxAge))
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Write(body)
}

func (s *Server) didDocument(w http.ResponseWriter, r *http.Request) {
	if s.Credentials == nil {
		s.writeError(w, r, credentialsOff)
		return
	}
	doc, err := s.Credentials.DIDDocument()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	b, err := json.Marshal(doc)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// Short: a rotated key must show soon, and a retired one stays listed.
	publicDocument(w, "application/did+json", int(seald.StatusListMaxAge.Seconds()), b)
}

func (s *Server) credentialContext(w http.ResponseWriter, r *http.Request) {
	if s.Credentials == nil {
		s.writeError(w, r, credentialsOff)
		return
	}
	b, _ := seald.CredentialContext()
	publicDocument(w, "application/ld+json", 86400, b)
}

func (s *Server) statusList(w http.ResponseWriter, r *http.Request) {
	if s.Credentials == nil {
		s.writeError(w, r, credentialsOff)
		return
	}
	list, err := seald.ParseStatusList(r.PathValue("list"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	b, err := s.Credentials.StatusListCredential(r.Context(), r.PathValue("purpose"), list)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	publicDocument(w, seald.MediaTypeVC, int(seald.StatusListMaxAge.Seconds()), b)
}

func (s *Server) statusListToken(w http.ResponseWriter, r *http.Request) {
	if s.Credentials == nil {
		s.writeError(w, r, credentialsOff)
		return
	}
	list, err := seald.ParseStatusList(r.PathValue("list"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	jwt, err := s.Credentials.StatusListToken(r.Context(), list)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	publicDocument(w, "application/statuslist+jwt", int(seald.StatusListMaxAge.Seconds()), []byte(jwt))
}
