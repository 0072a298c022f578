package mailpittest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Cert is a self-signed certificate for 127.0.0.1, ::1 and localhost, made fresh by a test so that STARTTLS
// and implicit TLS are exercised with real verification (against Roots) instead of InsecureSkipVerify.
type Cert struct {
	TLS      tls.Certificate // for an in-process server
	Roots    *x509.CertPool  // for the client: trusts exactly this certificate
	CertFile string          // PEM files, for a server program such as mailpit
	KeyFile  string
	Leaf     *x509.Certificate
}

// ClientConfig returns a TLS client configuration that trusts only this certificate.
func (c *Cert) ClientConfig() *tls.Config {
	return &tls.Config{RootCAs: c.Roots, MinVersion: tls.VersionTLS12}
}

// ServerConfig returns a TLS server configuration presenting this certificate.
func (c *Cert) ServerConfig() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{c.TLS}, MinVersion: tls.VersionTLS12}
}

// NewCert generates a certificate in t's temporary directory.
func NewCert(t testing.TB) *Cert {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "seald test mail server"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := &Cert{
		TLS:      pair,
		Roots:    x509.NewCertPool(),
		CertFile: filepath.Join(dir, "cert.pem"),
		KeyFile:  filepath.Join(dir, "key.pem"),
		Leaf:     leaf,
	}
	c.Roots.AddCert(leaf)
	if err := os.WriteFile(c.CertFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.KeyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return c
}
