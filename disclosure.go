package seald

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"sort"
	"strconv"
	"strings"
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

// BuildSD discloses canonical JSON data (an object, RFC 8785 form as Service.hashData makes it) with the
// salts of secret. It walks the canonical bytes once: a canonical value is already the canonical form its
// disclosure needs, so no disclosure is encoded or canonicalized again.
func BuildSD(canon []byte, secret []byte) (*SDPayload, error) {
	if len(canon) == 0 || canon[0] != '{' {
		return nil, fmt.Errorf("disclosure: the data is not an object")
	}
	b := &sdBuilder{canon: canon, mac: hmac.New(sha256.New, secret)}
	v, next, err := b.value("", 0)
	if err != nil {
		return nil, err
	}
	if next != len(canon) {
		return nil, fmt.Errorf("disclosure: bytes after the data")
	}
	payload := append(v[:len(v)-1:len(v)-1], `,"_sd_alg":"`+SDAlg+`"}`...)
	return &SDPayload{Payload: payload, Commitment: sha256.Sum256(payload), Disclosures: b.out}, nil
}

type sdBuilder struct {
	canon []byte
	mac   hash.Hash
	out   []SDMember
}

// salt is the salt of the member at pointer: 128 bits, base64url without padding.
func (b *sdBuilder) salt(pointer string) string {
	b.mac.Reset()
	b.mac.Write([]byte("salt\n" + pointer))
	var sum [sha256.Size]byte
	return base64.RawURLEncoding.EncodeToString(b.mac.Sum(sum[:0])[:16])
}

// pointerToken escapes a member name as one RFC 6901 reference token.
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

var errNotCanonical = fmt.Errorf("disclosure: the data is not in canonical form")

// value returns the SD form of the canonical value at b.canon[i:] and where it ends: an object's members and
// an array's elements are replaced by digests, their disclosures appended to b.out; anything else is itself.
func (b *sdBuilder) value(pointer string, i int) ([]byte, int, error) {
	c := b.canon
	if i >= len(c) {
		return nil, i, errNotCanonical
	}
	switch c[i] {
	case '{':
		var digests []string
		i++
		for i < len(c) && c[i] != '}' {
			if len(digests) > 0 {
				if c[i] != ',' {
					return nil, i, errNotCanonical
				}
				i++
			}
			end, err := stringEnd(c, i)
			if err != nil || end >= len(c) || c[end] != ':' {
				return nil, i, errNotCanonical
			}
			rawName := c[i:end]
			name := string(rawName[1 : len(rawName)-1])
			if bytes.IndexByte(rawName, '\\') >= 0 {
				if err := json.Unmarshal(rawName, &name); err != nil {
					return nil, i, errNotCanonical
				}
			}
			d, next, err := b.disclose(pointer+"/"+pointerToken(name), rawName, end+1)
			if err != nil {
				return nil, i, err
			}
			digests = append(digests, d)
			i = next
		}
		if i >= len(c) {
			return nil, i, errNotCanonical
		}
		sort.Strings(digests)
		out := []byte(`{"_sd":[`)
		for k, d := range digests {
			if k > 0 {
				out = append(out, ',')
			}
			out = append(append(append(out, '"'), d...), '"')
		}
		return append(out, "]}"...), i + 1, nil
	case '[':
		out := []byte{'['}
		i++
		for n := 0; i < len(c) && c[i] != ']'; n++ {
			if n > 0 {
				if c[i] != ',' {
					return nil, i, errNotCanonical
				}
				i++
				out = append(out, ',')
			}
			d, next, err := b.disclose(pointer+"/"+strconv.Itoa(n), nil, i)
			if err != nil {
				return nil, i, err
			}
			out = append(append(append(out, `{"...":"`...), d...), `"}`...)
			i = next
		}
		if i >= len(c) {
			return nil, i, errNotCanonical
		}
		return append(out, ']'), i + 1, nil
	case '"':
		end, err := stringEnd(c, i)
		return c[i:end], end, err
	}
	end := i
	for end < len(c) && c[end] != ',' && c[end] != '}' && c[end] != ']' {
		end++
	}
	if end == i {
		return nil, i, errNotCanonical
	}
	return c[i:end], end, nil
}

// stringEnd is the index just past the JSON string that starts at c[i].
func stringEnd(c []byte, i int) (int, error) {
	if i >= len(c) || c[i] != '"' {
		return i, errNotCanonical
	}
	for j := i + 1; j < len(c); j++ {
		switch c[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return len(c), errNotCanonical
}

// disclose makes the disclosure of the member (rawName, its canonical JSON string) or array element (nil)
// whose value starts at b.canon[i], and returns its digest and where the value ends. The member's own
// disclosure comes before those of its children. Its JSON array is canonical as written: the salt is
// base64url, the name and a scalar value are canonical bytes of the data, and an object's or array's SD form
// is written canonically by value.
func (b *sdBuilder) disclose(pointer string, rawName []byte, i int) (string, int, error) {
	at := len(b.out)
	b.out = append(b.out, SDMember{Path: pointer})
	v, next, err := b.value(pointer, i)
	if err != nil {
		return "", i, err
	}
	arr := make([]byte, 0, 32+len(rawName)+len(v))
	arr = append(append(append(arr, `["`...), b.salt(pointer)...), `",`...)
	if rawName != nil {
		arr = append(append(arr, rawName...), ',')
	}
	arr = append(append(arr, v...), ']')
	enc := base64.RawURLEncoding.EncodeToString(arr)
	b.out[at].Disclosure = enc
	return SDDigest(enc), next, nil
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
