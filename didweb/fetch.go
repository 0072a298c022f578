package didweb

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// DefaultTimeout bounds one fetch of a document, connection, TLS and answer, when a Fetcher does not say.
const DefaultTimeout = 10 * time.Second

// maxRedirects bounds the redirects followed within the document's origin.
const maxRedirects = 3

// Fetcher fetches DID documents over HTTPS. The caller owns the guard on where it may connect: DialContext,
// when set, makes every connection (seald passes its outbound guard, which refuses internal addresses an
// operator did not allow); the zero value dials with net.Dialer. TLS is verified against the system's roots
// (which honour SSL_CERT_FILE and SSL_CERT_DIR), or RootCAs when set; no proxy is used, since a proxy would
// connect past the guard.
type Fetcher struct {
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	RootCAs     *x509.CertPool
	Timeout     time.Duration // default DefaultTimeout
	MaxBytes    int64         // default MaxDocument
}

// Fetch returns the DID document of a did:web DID, unparsed. It refuses an answer that is not 200, larger than
// MaxBytes, or reached through a redirect to another origin (scheme, host or port).
func (f *Fetcher) Fetch(ctx context.Context, did string) ([]byte, error) {
	u, err := DocumentURL(did)
	if err != nil {
		return nil, err
	}
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	limit := f.MaxBytes
	if limit <= 0 {
		limit = MaxDocument
	}
	dial := f.DialContext
	if dial == nil {
		dial = (&net.Dialer{Timeout: timeout}).DialContext
	}
	origin, _ := url.Parse(u)
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           dial,
		TLSClientConfig:       &tls.Config{RootCAs: f.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		DisableKeepAlives:     true, // one document per check: nothing to keep a connection for
	}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if req.URL.Scheme != origin.Scheme || req.URL.Host != origin.Host {
			return fmt.Errorf("the DID document redirects to another origin (%s://%s): refused", req.URL.Scheme, req.URL.Host)
		}
		if len(via) > maxRedirects {
			return fmt.Errorf("more than %d redirects", maxRedirects)
		}
		return nil
	}}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/did+json, application/json")
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("fetching %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching %s: the server answered %s", u, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", u, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("fetching %s: the document is larger than %d bytes", u, limit)
	}
	return b, nil
}
