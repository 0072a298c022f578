package wiring

import (
	"bytes"
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// ServeURLFile is the file in the data dir where a running serve writes the URL its API answers on, so
// that the API commands (`seald verify`, `seald status`, …) run with the same --data-dir find it without
// --url. serve writes it atomically once its listener is bound and removes it when it stops; after a crash
// it stays behind, stale, and a command that reads it names it when the connection is refused.
const ServeURLFile = "serve.url"

// writeServeURL writes u to <dataDir>/serve.url, atomically (a reader sees the old file or the new one).
func writeServeURL(dataDir, u string) error {
	return writePrivate(filepath.Join(dataDir, ServeURLFile), []byte(u+"\n"))
}

// removeServeURL removes <dataDir>/serve.url if it still holds u: another serve started since on the same
// data dir keeps its own.
func removeServeURL(dataDir, u string) {
	path := filepath.Join(dataDir, ServeURLFile)
	if b, err := os.ReadFile(path); err == nil && string(bytes.TrimSpace(b)) == u {
		_ = os.Remove(path)
	}
}

// ReadServeURL is the URL a serve on dataDir wrote; "" with no error when there is none.
func ReadServeURL(dataDir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, ServeURLFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// dialableURL is the URL a client on this machine reaches a listener at: an unspecified address
// (0.0.0.0, ::) becomes the loopback one.
func dialableURL(scheme string, addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return scheme + "://" + addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.To4() == nil {
			host = "::1"
		}
	}
	return (&url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}).String()
}
