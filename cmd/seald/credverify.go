package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald"
	"seald.dev/seald/credential"
	"seald.dev/seald/evm"
	"seald.dev/seald/jcs"
	"seald.dev/seald/proof"
)

// credentialFile recognises a credential among the files `seald proof verify` reads: the W3C VC JSON (as the
// credential endpoint's data.credential, or that whole answer or its data), or an SD-JWT VC (the compact
// string, bare or as a JSON string, or that answer). It returns the VC's JSON or the SD-JWT VC, or neither.
func credentialFile(b []byte) (vc []byte, sdjwt string) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] != '{' && b[0] != '"' {
		if s := string(b); strings.HasPrefix(s, "ey") && strings.Contains(s, "~") {
			return nil, s
		}
		return nil, ""
	}
	var s string
	if json.Unmarshal(b, &s) == nil {
		return credentialFile([]byte(s))
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) != nil {
		return nil, ""
	}
	if _, ok := obj["@context"]; ok {
		var p struct {
			Proof struct{ Cryptosuite string } `json:"proof"`
		}
		if json.Unmarshal(b, &p) == nil && p.Proof.Cryptosuite != "" {
			return b, ""
		}
		return nil, ""
	}
	for _, inner := range []string{"data", "credential"} {
		if v, ok := obj[inner]; ok && len(v) > 0 && v[0] != 'n' {
			if vc, sd := credentialFile(v); vc != nil || sd != "" {
				return vc, sd
			}
		}
	}
	return nil, ""
}

// credentialCheck is what `seald proof verify` needs to check a credential: where the issuer's DID document
// comes from, the node of the anchor's chain, and the trust root if any.
type credentialCheck struct {
	file, issuerDoc, rpc string
	src                  *trustSource
	stdout, stderr       io.Writer
}

// fetchPublic GETs a URL a credential names (its issuer's DID document, its status lists): over https, or
// over plain http only from this machine's loopback, as the VC tools' --allow-http-loopback.
func fetchPublic(ctx context.Context, where string) ([]byte, error) {
	u, err := url.Parse(where)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%q is not a URL", where)
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())) {
		return nil, fmt.Errorf("%s: refused, a credential's documents are fetched over https (plain http only from this machine's loopback)", where)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		return nil, err
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d", where, resp.StatusCode)
	}
	return io.ReadAll(io.LimitReader(resp.Body, 4<<20))
}

// didWebURL is the URL of a did:web DID's document (the did:web method): https://host/.well-known/did.json,
// or https://host/path/did.json for a DID with path segments; http for a loopback host.
func didWebURL(did string) (string, error) {
	rest, ok := strings.CutPrefix(did, "did:web:")
	if !ok || rest == "" {
		return "", fmt.Errorf("issuer %q is not a did:web DID", did)
	}
	parts := strings.Split(rest, ":")
	host, err := url.PathUnescape(parts[0])
	if err != nil {
		return "", fmt.Errorf("issuer %q: %v", did, err)
	}
	scheme := "https"
	if h := (&url.URL{Host: host}).Hostname(); isLoopback(h) {
		scheme = "http"
	}
	if len(parts) == 1 {
		return scheme + "://" + host + "/.well-known/did.json", nil
	}
	return scheme + "://" + host + "/" + strings.Join(parts[1:], "/") + "/did.json", nil
}

// resolver reads the issuer's DID document (from --issuer-doc, else from its did:web) and returns a Resolver
// over it; the document must be the issuer's.
func (c *credentialCheck) resolver(ctx context.Context, issuer string) (credential.Resolver, error) {
	var b []byte
	var err error
	if c.issuerDoc != "" {
		b, err = os.ReadFile(c.issuerDoc)
	} else {
		var where string
		if where, err = didWebURL(issuer); err == nil {
			b, err = fetchPublic(ctx, where)
		}
	}
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("the issuer's DID document is not JSON: %v", err)
	}
	if doc["id"] != issuer {
		return nil, fmt.Errorf("the DID document is of %v, not of the issuer %s", doc["id"], issuer)
	}
	return credential.ResolveIn(doc), nil
}

// verifyVC checks a W3C VC: its eddsa-rdfc-2022 proof with the issuer's DID key, its evidence against the
// claims and on chain, and its status entries in the served lists.
func (c *credentialCheck) verifyVC(ctx context.Context, b []byte) error {
	var vc struct {
		ID                string          `json:"id"`
		Issuer            string          `json:"issuer"`
		CredentialSubject json.RawMessage `json:"credentialSubject"`
		Evidence          []struct {
			Network, ChainID, Contract, TokenID, Transaction, ContentHash, Leaf, MerkleRoot string
			BlockNumber                                                                     uint64
			MerklePath                                                                      []string
		} `json:"evidence"`
		CredentialStatus []struct {
			StatusPurpose, StatusListIndex, StatusListCredential string
		} `json:"credentialStatus"`
	}
	if err := json.Unmarshal(b, &vc); err != nil {
		return exitWith(exitInvalid, "%s: not a credential: %v", c.file, err)
	}
	name := vc.ID
	if name == "" {
		name = "the credential"
	}
	resolve, err := c.resolver(ctx, vc.Issuer)
	if err != nil {
		return exitWith(exitUnchecked, "could not check %s: the issuer's DID document: %v", name, err)
	}
	vm, err := credential.Verify(b, resolve)
	if err != nil {
		return exitWith(exitInvalid, "%s is NOT valid: %v", name, err)
	}
	if len(vc.Evidence) != 1 {
		return exitWith(exitInvalid, "%s is NOT valid: it has %d anchors (SealdAnchor evidence), not one", name, len(vc.Evidence))
	}
	e := vc.Evidence[0]
	canon, err := jcs.Canonicalize(vc.CredentialSubject)
	if err != nil {
		return exitWith(exitInvalid, "%s is NOT valid: its claims have no canonical form: %v", name, err)
	}
	if sum := sha256.Sum256(canon); hex.EncodeToString(sum[:]) != e.ContentHash {
		return exitWith(exitInvalid, "%s is NOT valid: the claims' hash is not the anchored contentHash %s", name, e.ContentHash)
	}
	p := &proof.Bundle{Hash: e.ContentHash, Network: e.Network, ChainID: e.ChainID, Contract: e.Contract, TokenID: e.TokenID,
		Leaf: e.Leaf, MerklePath: e.MerklePath, Root: e.MerkleRoot, TxHash: e.Transaction, BlockNumber: e.BlockNumber}
	var match *proof.TrustMatch
	if c.src != nil {
		if c.src.note != "" {
			defer fmt.Fprintln(c.stderr, c.src.note)
		}
		if match, err = c.src.root.CheckAnchor(p.ChainID, p.Contract, p.BlockNumber); err != nil {
			return exitWith(exitInvalid, "%s is NOT valid: %v", name, err)
		}
	}
	client, err := ethclient.DialContext(ctx, c.rpc)
	if err != nil {
		return exitWith(exitUnchecked, "--rpc: %v", err)
	}
	defer client.Close()
	check, err := evm.CheckAnchor(ctx, client, p)
	if seald.ErrorCode(err) == seald.EUNAVAILABLE {
		return exitWith(exitUnchecked, "could not check the anchor of %s: %v (--rpc %s)", name, err, c.rpc)
	}
	if err != nil {
		return exitWith(exitInvalid, "%s is NOT valid: its anchor: %s", name, seald.ErrorMessage(err))
	}
	if match != nil {
		if err := match.CheckChain(p, check.Sender, check.Anchored); err != nil {
			return exitWith(exitInvalid, "%s is NOT valid: %v", name, err)
		}
	}
	if c.src != nil {
		if err := keyCoversAnchor(c.src.root, vm, p.ChainID, p.BlockNumber, check.Anchored); err != nil {
			return exitWith(exitInvalid, "%s is NOT valid: %v", name, err)
		}
	}
	var set []string
	for _, s := range vc.CredentialStatus {
		on, err := c.bitstringStatus(ctx, resolve, vc.Issuer, s.StatusPurpose, s.StatusListCredential, s.StatusListIndex)
		if err != nil {
			return err
		}
		if on {
			set = append(set, s.StatusPurpose)
		}
	}
	what := fmt.Sprintf("%s is signed by %s (eddsa-rdfc-2022), its claims are anchored as token %s of contract %s on chain %s in block %d (%s), sent by %s",
		name, vm, p.TokenID, p.Contract, p.ChainID, p.BlockNumber, check.Anchored.Format(time.RFC3339), check.Sender)
	if c.src != nil {
		what += "; the issuer " + c.src.from + " lists the chain, the contract for that block and the anchoring address"
	}
	return c.verdict(what, set, check.Revoked)
}

// verdict prints the outcome and picks the exit status: revoked (in a status list or on chain) is
// exitRevoked, suspended exitSuspended, else 0.
func (c *credentialCheck) verdict(what string, set []string, revokedOnChain bool) error {
	revoked, suspended := revokedOnChain, false
	for _, s := range set {
		revoked = revoked || s == credential.PurposeRevocation
		suspended = suspended || s == credential.PurposeSuspension
	}
	switch {
	case revoked:
		where := "in its issuer's status list"
		if revokedOnChain {
			where = "on chain"
		}
		fmt.Fprintf(c.stdout, "REVOKED: %s; revoked %s\n", what, where)
		return &exitError{code: exitRevoked, err: errors.New("the credential is revoked")}
	case suspended:
		fmt.Fprintf(c.stdout, "SUSPENDED: %s; suspended by its issuer\n", what)
		return &exitError{code: exitSuspended, err: errors.New("the credential is suspended")}
	}
	fmt.Fprintf(c.stdout, "ok: %s; not revoked nor suspended\n", what)
	return nil
}

// bitstringStatus fetches a Bitstring Status List credential, checks it is the issuer's, signed, of the
// purpose, and reads the entry's bit.
func (c *credentialCheck) bitstringStatus(ctx context.Context, resolve credential.Resolver, issuer, purpose, listURL, index string) (bool, error) {
	i, err := strconv.Atoi(index)
	if err != nil || i < 0 {
		return false, exitWith(exitInvalid, "the credential is NOT valid: status index %q", index)
	}
	b, err := fetchPublic(ctx, listURL)
	if err != nil {
		return false, exitWith(exitUnchecked, "could not read the %s status list: %v", purpose, err)
	}
	if _, err := credential.Verify(b, resolve); err != nil {
		return false, exitWith(exitUnchecked, "the %s status list %s does not verify: %v", purpose, listURL, err)
	}
	var l struct {
		ID                string `json:"id"`
		Issuer            string `json:"issuer"`
		CredentialSubject struct {
			StatusPurpose, EncodedList string
		} `json:"credentialSubject"`
	}
	json.Unmarshal(b, &l)
	if l.Issuer != issuer || l.ID != listURL || l.CredentialSubject.StatusPurpose != purpose {
		return false, exitWith(exitUnchecked, "%s is not the issuer's %s list", listURL, purpose)
	}
	bits, err := credential.DecodeBitstring(l.CredentialSubject.EncodedList)
	if err != nil || i/8 >= len(bits) {
		return false, exitWith(exitUnchecked, "the %s status list %s: no entry %d", purpose, listURL, i)
	}
	return credential.Bitstring(bits).Get(i), nil
}

// verifySDJWTVC checks an SD-JWT VC: the issuer JWT's signature with the issuer's DID key, every disclosure's
// digest in the signed payload, and the status in the served status list token. It has no anchor evidence.
func (c *credentialCheck) verifySDJWTVC(ctx context.Context, sd string) error {
	parts := strings.Split(sd, "~")
	jwt, disclosures := parts[0], parts[1:]
	if len(disclosures) > 0 && disclosures[len(disclosures)-1] == "" {
		disclosures = disclosures[:len(disclosures)-1]
	}
	seg := strings.Split(jwt, ".")
	if len(seg) != 3 {
		return exitWith(exitInvalid, "%s: not an SD-JWT VC", c.file)
	}
	raw, err := base64.RawURLEncoding.DecodeString(seg[1])
	var unverified struct{ Iss string }
	if err != nil || json.Unmarshal(raw, &unverified) != nil {
		return exitWith(exitInvalid, "%s: the issuer JWT's payload is not JSON", c.file)
	}
	resolve, err := c.resolver(ctx, unverified.Iss)
	if err != nil {
		return exitWith(exitUnchecked, "could not check the SD-JWT VC: the issuer's DID document: %v", err)
	}
	prefixed := func(vm string) (ed25519.PublicKey, error) {
		if !strings.HasPrefix(vm, unverified.Iss+"#") {
			return nil, fmt.Errorf("the JWT's kid %q is not a key of the issuer %s", vm, unverified.Iss)
		}
		return resolve(vm)
	}
	payload, err := credential.VerifyJWT(jwt, credential.SDJWTVCType, prefixed)
	if err != nil {
		return exitWith(exitInvalid, "the SD-JWT VC is NOT valid: %v", err)
	}
	var claims struct {
		Vct    string `json:"vct"`
		SDAlg  string `json:"_sd_alg"`
		Status struct {
			StatusList struct {
				Idx int    `json:"idx"`
				URI string `json:"uri"`
			} `json:"status_list"`
		} `json:"status"`
	}
	json.Unmarshal(payload, &claims)
	if claims.SDAlg != "sha-256" {
		return exitWith(exitInvalid, "the SD-JWT VC is NOT valid: _sd_alg %q, not sha-256", claims.SDAlg)
	}
	if err := checkDisclosures(payload, disclosures); err != nil {
		return exitWith(exitInvalid, "the SD-JWT VC is NOT valid: %v", err)
	}
	status, err := c.tokenStatus(ctx, prefixed, claims.Status.StatusList.URI, claims.Status.StatusList.Idx)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("the SD-JWT VC (%s) of %s is signed by its key, with %d disclosures it signed", claims.Vct, unverified.Iss, len(disclosures))
	var set []string
	switch status {
	case credential.TokenInvalid:
		set = append(set, credential.PurposeRevocation)
	case credential.TokenSuspended:
		set = append(set, credential.PurposeSuspension)
	}
	return c.verdict(what+" (it carries no anchor: verify the VC form or the proof bundle for that)", set, false)
}

// tokenStatus fetches the status list token at uri, checks it is signed by the issuer and is the list at
// uri, and reads the status of idx.
func (c *credentialCheck) tokenStatus(ctx context.Context, resolve credential.Resolver, uri string, idx int) (byte, error) {
	if uri == "" || idx < 0 {
		return 0, exitWith(exitInvalid, "the SD-JWT VC is NOT valid: it names no status list entry")
	}
	b, err := fetchPublic(ctx, uri)
	if err != nil {
		return 0, exitWith(exitUnchecked, "could not read the status list token: %v", err)
	}
	tok := strings.TrimSpace(string(b))
	if _, err := credential.VerifyJWT(tok, credential.TokenStatusType, resolve); err != nil {
		return 0, exitWith(exitUnchecked, "the status list token %s does not verify: %v", uri, err)
	}
	sub, st, err := credential.ParseStatusListToken(tok)
	if err != nil || sub != uri || idx/4 >= len(st) {
		return 0, exitWith(exitUnchecked, "%s is not the status list token of entry %d", uri, idx)
	}
	return credential.TokenStatuses(st).Get(idx), nil
}

// checkDisclosures checks that each disclosure's digest is one the signed payload, or a disclosure already
// accepted, lists (in an _sd array or an array element {"...": digest}), once each.
func checkDisclosures(payload []byte, disclosures []string) error {
	listed := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if sd, ok := v["_sd"].([]any); ok {
				for _, d := range sd {
					if s, ok := d.(string); ok {
						listed[s] = true
					}
				}
			}
			if d, ok := v["..."].(string); ok {
				listed[d] = true
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var p any
	if err := json.Unmarshal(payload, &p); err != nil {
		return err
	}
	walk(p)
	seen := map[string]bool{}
	for pending := disclosures; len(pending) > 0; {
		var left []string
		for _, d := range pending {
			digest := proof.SDDigest(d)
			if !listed[digest] {
				left = append(left, d)
				continue
			}
			if seen[digest] {
				return errors.New("a disclosure is given twice")
			}
			seen[digest] = true
			raw, err := base64.RawURLEncoding.DecodeString(d)
			var arr []any
			if err != nil || json.Unmarshal(raw, &arr) != nil || len(arr) < 2 || len(arr) > 3 {
				return errors.New("a disclosure is not a base64url JSON array")
			}
			walk(arr[len(arr)-1])
		}
		if len(left) == len(pending) {
			return fmt.Errorf("%d disclosures are not signed by the issuer (their digests are in no _sd): a claim was changed", len(left))
		}
		pending = left
	}
	return nil
}

// credentialVerify is `seald proof verify` of a credential: the VC form needs --rpc for its anchor; the
// trust root, when given, must list the anchor's chain, contract and sender as for a bundle.
func credentialVerify(ctx context.Context, vc []byte, sd string, c credentialCheck, trust, pinDir string, repin bool, dataFile string) error {
	if dataFile != "" {
		return usageError("--data: a credential carries its claims; there is no data to compare")
	}
	if sd != "" {
		return c.verifySDJWTVC(ctx, sd)
	}
	if c.rpc == "" {
		return usageError("proof verify of a credential needs --rpc URL: a node of its anchor's chain")
	}
	if trust != "" {
		src, err := loadTrust(ctx, trust, pinDir, repin)
		if err != nil {
			return exitWith(exitUnchecked, "--trust: %v", err)
		}
		c.src = src
	}
	return c.verifyVC(ctx, vc)
}

// keyCoversAnchor applies the trust root's key windows to a credential signed by verification method vm
// (DID#KEYID): a key the root marks compromised signs nothing, and a retired one only credentials of anchors
// made before its retirement (proof.TrustKey.RetiredFor, by block where the root records one), as for a proof
// bundle. A credential is issued after its anchor with the key current then, so one whose anchor is after the
// key's retirement was not issued with it. A method the root does not list (a business's own did:web key) is
// the business's DID document's to vouch for, not the trust root's.
func keyCoversAnchor(root *proof.TrustRoot, vm, chainID string, block uint64, anchored time.Time) error {
	_, keyID, ok := strings.Cut(vm, "#")
	if !ok {
		return nil
	}
	for _, k := range root.Keys {
		if k.KeyID != keyID {
			continue
		}
		if k.Status == "compromised" {
			return fmt.Errorf("it is signed by key %s, which the trust root marks compromised", keyID)
		}
		if retired, why := k.RetiredFor(chainID, block, anchored); retired {
			return fmt.Errorf("it is signed by key %s, which %s", keyID, why)
		}
	}
	return nil
}
