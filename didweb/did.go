package didweb

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Prefix starts every did:web DID.
const Prefix = "did:web:"

// MaxDomain bounds a domain (host, port and path) in characters.
const MaxDomain = 253

// NormalizeDomain checks a domain as a business gives it, "acme.example", "acme.example:8443" or
// "acme.example/dept/eu" (a path DID), and returns it in lower case without a trailing dot or slash. A scheme,
// credentials, a query or a fragment are refused: the DID names a host, an optional port and an optional path,
// and nothing else.
func NormalizeDomain(domain string) (string, error) {
	d := strings.TrimSpace(domain)
	if d == "" {
		return "", errors.New("the domain is empty")
	}
	if len(d) > MaxDomain {
		return "", fmt.Errorf("the domain is longer than %d characters", MaxDomain)
	}
	if strings.Contains(d, "://") {
		return "", errors.New("give the domain alone, without a scheme (acme.example, not https://acme.example)")
	}
	if strings.ContainsAny(d, "?#@ \t\\%") {
		return "", errors.New("a domain holds a host name, an optional :port and an optional /path only")
	}
	hostport, path, _ := strings.Cut(strings.TrimSuffix(d, "/"), "/")
	host, port := hostport, ""
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		host, port = h, p
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != p {
			return "", fmt.Errorf("the port %q is not a number from 1 to 65535", p)
		}
	} else if strings.Contains(hostport, ":") {
		return "", fmt.Errorf("%q is not a host with an optional port (an IPv6 address is not a did:web domain)", hostport)
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if err := checkHost(host); err != nil {
		return "", err
	}
	var segs []string
	if path != "" {
		for _, s := range strings.Split(path, "/") {
			if s == "" || s == "." || s == ".." {
				return "", fmt.Errorf("the path %q has an empty, . or .. segment", path)
			}
			for _, r := range s {
				if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~", r)) {
					return "", fmt.Errorf("the path segment %q holds %q: only letters, digits and -._~ are allowed", s, r)
				}
			}
			segs = append(segs, s)
		}
	}
	out := host
	if port != "" {
		out += ":" + port
	}
	if len(segs) > 0 {
		out += "/" + strings.Join(segs, "/")
	}
	return out, nil
}

// checkHost accepts a DNS name of letters, digits and hyphens, or an IPv4 address (for tests on loopback).
func checkHost(host string) error {
	if host == "" {
		return errors.New("the domain has no host name")
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.To4() == nil {
			return errors.New("an IPv6 address is not a did:web domain")
		}
		return nil
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || len(label) > 63 {
			return fmt.Errorf("%q is not a host name: a label is empty or longer than 63 characters", host)
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("%q is not a host name: a label starts or ends with a hyphen", host)
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return fmt.Errorf("%q is not a host name: %q is not a letter, digit or hyphen (write an internationalized name in its xn-- form)", host, r)
			}
		}
	}
	return nil
}

// DID returns the did:web DID of a domain: "acme.example" → "did:web:acme.example", "127.0.0.1:8443" →
// "did:web:127.0.0.1%3A8443", "acme.example/dept/eu" → "did:web:acme.example:dept:eu".
func DID(domain string) (string, error) {
	d, err := NormalizeDomain(domain)
	if err != nil {
		return "", err
	}
	hostport, path, _ := strings.Cut(d, "/")
	id := Prefix + strings.Replace(hostport, ":", "%3A", 1)
	if path != "" {
		id += ":" + strings.ReplaceAll(path, "/", ":")
	}
	return id, nil
}

// Domain returns the domain of a did:web DID, the inverse of DID.
func Domain(did string) (string, error) {
	rest, ok := strings.CutPrefix(did, Prefix)
	if !ok {
		return "", fmt.Errorf("%q is not a did:web DID", did)
	}
	parts := strings.Split(rest, ":")
	hostport := parts[0]
	if h, p, found := strings.Cut(hostport, "%3A"); found {
		hostport = h + ":" + p
	} else if h, p, found := strings.Cut(hostport, "%3a"); found {
		hostport = h + ":" + p
	}
	d := hostport
	if len(parts) > 1 {
		d += "/" + strings.Join(parts[1:], "/")
	}
	n, err := NormalizeDomain(d)
	if err != nil {
		return "", fmt.Errorf("%q is not a did:web DID: %v", did, err)
	}
	if back, _ := DID(n); back != did {
		return "", fmt.Errorf("%q is not a did:web DID in its canonical form (%s)", did, back)
	}
	return n, nil
}

// DocumentURL is where the DID document of a did:web DID is published: https://<domain>/.well-known/did.json,
// or https://<domain>/<path>/did.json for a DID with a path.
func DocumentURL(did string) (string, error) {
	d, err := Domain(did)
	if err != nil {
		return "", err
	}
	hostport, path, _ := strings.Cut(d, "/")
	u := url.URL{Scheme: "https", Host: hostport, Path: "/.well-known/did.json"}
	if path != "" {
		u.Path = "/" + path + "/did.json"
	}
	return u.String(), nil
}
