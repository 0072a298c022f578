package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// trustSource is a trust root as `seald proof verify` got it, with where from, for its verdict.
type trustSource struct {
	root *proof.TrustRoot
	// from says where the root came from: "file F", or "ORIGIN (fetched from URL; pinned …)".
	from string
	// note, when not empty, is what happened to the pin (first pinned, updated by a rotation, re-pinned).
	note string
}

// trustPinDir is where `seald proof verify --trust URL` keeps the trust roots it pinned, one file per
// origin: <user config dir>/seald/trust (on Linux ~/.config/seald/trust).
func trustPinDir() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return filepath.Join(".seald", "trust")
	}
	return filepath.Join(dir, "seald", "trust")
}

// loadTrust reads the trust root of --trust: a file as it is (the verifier chose to trust it), or a URL,
// fetched under fetchTrustRoot's rules, whose issuer must be the origin it came from, signed by its current
// key, and pinned: the first fetch is kept in pinDir, and a later one that differs is accepted only when it
// is signed by the pinned root's current key (a rotation), or with repin.
func loadTrust(ctx context.Context, where, pinDir string, repin bool) (*trustSource, error) {
	if !strings.HasPrefix(where, "http://") && !strings.HasPrefix(where, "https://") {
		b, err := os.ReadFile(where)
		if err != nil {
			return nil, err
		}
		t, err := proof.ParseTrustRoot(b)
		if err != nil {
			return nil, errors.New(seald.ErrorMessage(err))
		}
		return &trustSource{root: t, from: "trust root file " + where}, nil
	}
	raw, origin, err := fetchTrustRoot(ctx, where, true)
	if err != nil {
		return nil, err
	}
	t, err := proof.ParseTrustRoot(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", where, seald.ErrorMessage(err))
	}
	issuer, err := url.Parse(t.Issuer)
	if err != nil || originOf(issuer) != origin {
		return nil, fmt.Errorf("the trust root at %s names the issuer %q, not %s where it came from: refused (a trust root speaks only for its own origin)",
			where, t.Issuer, origin)
	}
	if err := t.CheckSigned(); err != nil {
		return nil, fmt.Errorf("%s: %s", where, seald.ErrorMessage(err))
	}
	src := &trustSource{root: t, from: origin + " (trust root fetched from " + where + ")"}
	pin := filepath.Join(pinDir, pinName(origin))
	old, err := os.ReadFile(pin)
	switch {
	case errors.Is(err, fs.ErrNotExist) || repin:
		if repin {
			src.note = fmt.Sprintf("re-pinned the trust root of %s at %s (--trust-repin)", origin, pin)
		} else {
			src.note = fmt.Sprintf("pinned the trust root of %s at %s (first fetch); a later change is accepted only when signed by its current key", origin, pin)
		}
		return src, writePin(pin, raw)
	case err != nil:
		return nil, fmt.Errorf("the pinned trust root of %s: %v", origin, err)
	}
	pinned, err := proof.ParseTrustRoot(old)
	if err != nil {
		return nil, fmt.Errorf("the pinned trust root %s: %s (remove it, or run with --trust-repin)", pin, seald.ErrorMessage(err))
	}
	if pinned.Digest() == t.Digest() {
		return src, nil
	}
	if err := t.Continues(pinned); err != nil {
		return nil, fmt.Errorf("the trust root at %s differs from the one pinned at %s and %s: it may have been swapped, and is refused. "+
			"If the issuer told you, by a channel you trust, that it replaced its trust root (for instance after its current key was "+
			"compromised), run again with --trust-repin to pin the new one", where, pin, seald.ErrorMessage(err))
	}
	k, _ := pinned.CurrentKey()
	src.note = fmt.Sprintf("the trust root of %s changed since it was pinned; the new one is signed by key %s of the pinned one: pin %s updated", origin, k.KeyID, pin)
	return src, writePin(pin, raw)
}

// fetchTrustRoot GETs a trust root document and returns it with the origin it came from. strict (proof
// verify) takes https, or plain http only to a loopback host, where nobody on the way can change it; a
// redirect to another origin (another host, port or scheme) is refused either way, so the origin printed is
// the one that answered.
func fetchTrustRoot(ctx context.Context, where string, strict bool) ([]byte, string, error) {
	u, err := url.Parse(where)
	if err != nil || u.Host == "" {
		return nil, "", fmt.Errorf("%q is not a URL", where)
	}
	if strict && u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())) {
		return nil, "", fmt.Errorf("%s: a trust root is fetched over https (plain http only from this machine's loopback)", where)
	}
	origin := originOf(u)
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if o := originOf(req.URL); o != origin {
			return fmt.Errorf("%s redirects to another origin, %s: refused (the trust root must come from the issuer's own origin)", where, o)
		}
		if len(via) >= 10 {
			return errors.New("too many redirects")
		}
		return nil
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		return nil, "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("%s answered %s", where, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return b, origin, err
}

// originOf is scheme://host[:port] in lower case, without the scheme's default port.
func originOf(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if scheme == "https" && port == "443" || scheme == "http" && port == "80" {
		port = ""
	}
	if port != "" {
		host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// pinName is the file an origin's pinned trust root is kept in: the origin with its punctuation replaced.
func pinName(origin string) string {
	return strings.NewReplacer("://", "_", ":", "_", "/", "_", "[", "", "]", "").Replace(origin) + ".json"
}

// writePin keeps a trust root as fetched, atomically.
func writePin(path string, raw []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("pin the trust root: %v", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pin-*")
	if err != nil {
		return fmt.Errorf("pin the trust root: %v", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, bytes.NewReader(raw)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
