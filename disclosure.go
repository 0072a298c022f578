package seald

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"seald.dev/seald/jcs"
)

// Selective disclosure (issue 35, docs/disclosure.md). At sealing, the data is also turned into an SD payload
// in the style of RFC 9901 (SD-JWT) sections 4 and 6: every member of every object becomes a disclosure, the
// base64url (no padding) of the JSON array [salt, name, value], and every array element one of [salt, value];
// a disclosure's digest is base64url(SHA-256(its base64url string)). An object becomes {"_sd": [digests,
// sorted]}, an array element {"...": digest}, and a nested object or array is processed first, so its
// disclosure's value carries its own _sd. The top object also has "_sd_alg": "sha-256". The payload holds
// nothing of the data but digests.
//
// The commitment is the SHA-256 of the payload's RFC 8785 canonical form. It is anchored in the record's
// batch as a second Merkle leaf, keccak256(0x02 || uint256(tokenID) || commitment) (package evm), so a
// presentation of some members proves them against the root the contract holds for the token.
//
// Salts are 128 bits, derived from the record's data key (DisclosureKeyer): the salt of the member at JSON
// pointer P is the first 16 bytes of HMAC-SHA256(disclosure secret, "salt\n" + P). The disclosures are never
// stored; the owner's package is made again from the data and the key whenever asked, and once the record is
// erased (its key destroyed) no package can be made again, while presentations made before keep verifying.

// SDAlg is the only digest algorithm of seald's SD payloads.
const SDAlg = "sha-256"

// DisclosureKeyer derives a record's disclosure secret from its wrapped data key (Record.DataKey), so that
// destroying the key destroys every salt.
type DisclosureKeyer interface {
	DisclosureSecret(reference, dataKey string) ([]byte, error)
}

// SDMember is one disclosure of a record's SD payload with the JSON pointer (RFC 6901) of its member.
type SDMember struct {
	Path       string `json:"path"`
	Disclosure string `json:"disclosure"`
}

// SDPayload is the result of disclosing a record's data: the canonical payload, its commitment and every
// disclosure, in document order (a parent before its children).
type SDPayload struct {
	Payload     []byte // RFC 8785 canonical JSON of the payload
	Commitment  [32]byte
	Disclosures []SDMember
}

// disclosureSalt is the salt of the member at pointer: 128 bits, base64url without padding.
func disclosureSalt(secret []byte, pointer string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("salt\n" + pointer))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// disclosureBlind is the record's blinding node of its batch's Merkle tree (evm.BatchTree): 32 bytes no one
// but seald knows, paired with the record's content leaf so that no node of a presentation's Merkle path is a
// function of the content hash alone (which would let a verifier confirm guesses of the hidden members).
func disclosureBlind(secret []byte) [32]byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("blind\n"))
	var b [32]byte
	copy(b[:], m.Sum(nil))
	return b
}

// SDDigest is the digest of an encoded disclosure: base64url(SHA-256(the encoded string)).
func SDDigest(encoded string) string {
	sum := sha256.Sum256([]byte(encoded))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// BuildSD discloses canonical JSON data (an object) with the salts of secret.
func BuildSD(canon []byte, secret []byte) (*SDPayload, error) {
	b := &sdBuilder{secret: secret}
	v, err := b.value("", canon)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(v, &top); err != nil {
		return nil, fmt.Errorf("disclosure: the data is not an object")
	}
	top["_sd_alg"] = json.RawMessage(strconv.Quote(SDAlg))
	raw, _ := json.Marshal(top)
	payload, err := jcs.Canonicalize(raw)
	if err != nil {
		return nil, err
	}
	return &SDPayload{Payload: payload, Commitment: sha256.Sum256(payload), Disclosures: b.out}, nil
}

type sdBuilder struct {
	secret []byte
	out    []SDMember
}

// pointerToken escapes a member name as one RFC 6901 reference token.
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// value returns the SD form of the JSON value at pointer: an object's members and an array's elements are
// replaced by digests, their disclosures appended to b.out; anything else is itself.
func (b *sdBuilder) value(pointer string, raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, fmt.Errorf("disclosure: empty value at %q", pointer)
	}
	switch raw[0] {
	case '{':
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
		digests := make([]string, 0, len(names))
		for _, k := range names {
			p := pointer + "/" + pointerToken(k)
			d, err := b.disclose(p, m[k], &k)
			if err != nil {
				return nil, err
			}
			digests = append(digests, d)
		}
		sort.Strings(digests)
		return json.Marshal(map[string][]string{"_sd": digests})
	case '[':
		var a []json.RawMessage
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, err
		}
		out := make([]map[string]string, len(a))
		for i, e := range a {
			d, err := b.disclose(pointer+"/"+strconv.Itoa(i), e, nil)
			if err != nil {
				return nil, err
			}
			out[i] = map[string]string{"...": d}
		}
		return json.Marshal(out)
	}
	return raw, nil
}

// disclose makes the disclosure of the member (name set) or array element at pointer and returns its digest.
// The member's own disclosure comes before those of its children.
func (b *sdBuilder) disclose(pointer string, raw json.RawMessage, name *string) (string, error) {
	at := len(b.out)
	b.out = append(b.out, SDMember{Path: pointer})
	v, err := b.value(pointer, raw)
	if err != nil {
		return "", err
	}
	arr := []any{disclosureSalt(b.secret, pointer)}
	if name != nil {
		arr = append(arr, *name)
	}
	arr = append(arr, v)
	j, _ := json.Marshal(arr)
	if j, err = jcs.Canonicalize(j); err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding.EncodeToString(j)
	b.out[at].Disclosure = enc
	return SDDigest(enc), nil
}

// decodeCommitment parses a record's hex commitment.
func decodeCommitment(s string) ([32]byte, error) {
	var c [32]byte
	if !IsHash(s) {
		return c, Errorf(EINVALID, "commitment must be 64 lowercase hex digits")
	}
	_, err := hex.Decode(c[:], []byte(s))
	return c, err
}
