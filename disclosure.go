package seald

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash"
	"slices"
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
	b := &sdBuilder{keep: true}
	payload, err := b.build(canon, secret)
	if err != nil {
		return nil, err
	}
	return &SDPayload{Payload: payload, Commitment: sha256.Sum256(payload), Disclosures: b.out}, nil
}

// SDCommitment is BuildSD's commitment alone, what sealing keeps: the same walk, without keeping the
// disclosures (a string and a path each), so a seal pays for the hashing and little else.
func SDCommitment(canon []byte, secret []byte) ([32]byte, error) {
	var b sdBuilder
	payload, err := b.build(canon, secret)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(payload), nil
}

// sdBuilder walks canonical data once, making the disclosures. Its buffers are reused from one disclosure
// to the next: ptr holds the JSON pointer of the value being walked (each member appends its token and
// takes it off again), digs the digests of the objects being walked (each object its own tail).
type sdBuilder struct {
	canon []byte
	mac   hash.Hash
	keep  bool       // keep the disclosures in out (BuildSD), or only their digests (SDCommitment)
	out   []SDMember // the disclosures, when keep
	ptr   []byte
	digs  []sdDigest
	arr   []byte // a disclosure's JSON array
	enc   []byte // its base64url
	sum   [sha256.Size]byte
}

// sdDigest is a digest as the payload writes it: base64url (no padding) of 32 bytes.
type sdDigest [43]byte

// build returns the SD payload of canon.
func (b *sdBuilder) build(canon []byte, secret []byte) ([]byte, error) {
	if len(canon) == 0 || canon[0] != '{' {
		return nil, fmt.Errorf("disclosure: the data is not an object")
	}
	b.canon, b.mac = canon, hmac.New(sha256.New, secret)
	v, next, err := b.value(0)
	if err != nil {
		return nil, err
	}
	if next != len(canon) {
		return nil, fmt.Errorf("disclosure: bytes after the data")
	}
	return append(v[:len(v)-1:len(v)-1], `,"_sd_alg":"`+SDAlg+`"}`...), nil
}

// appendSalt appends the salt of the member at b.ptr: 128 bits, base64url without padding.
func (b *sdBuilder) appendSalt(dst []byte) []byte {
	b.mac.Reset()
	b.mac.Write(saltLabel)
	b.mac.Write(b.ptr)
	return base64.RawURLEncoding.AppendEncode(dst, b.mac.Sum(b.sum[:0])[:16])
}

var saltLabel = []byte("salt\n")

// pointerToken escapes a member name as one RFC 6901 reference token.
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// appendToken appends the RFC 6901 reference token of the member name s.
func appendToken(dst []byte, s []byte) []byte {
	for _, c := range s {
		switch c {
		case '~':
			dst = append(dst, '~', '0')
		case '/':
			dst = append(dst, '~', '1')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

var errNotCanonical = fmt.Errorf("disclosure: the data is not in canonical form")

// value returns the SD form of the canonical value at b.canon[i:] (whose pointer is b.ptr) and where it
// ends: an object's members and an array's elements are replaced by digests, their disclosures appended to
// b.out; anything else is itself.
func (b *sdBuilder) value(i int) ([]byte, int, error) {
	c := b.canon
	if i >= len(c) {
		return nil, i, errNotCanonical
	}
	switch c[i] {
	case '{':
		first := len(b.digs) // this object's digests are b.digs[first:]
		defer func() { b.digs = b.digs[:first] }()
		i++
		for i < len(c) && c[i] != '}' {
			if len(b.digs) > first {
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
			at := len(b.ptr)
			b.ptr = append(b.ptr, '/')
			if bytes.IndexByte(rawName, '\\') >= 0 {
				var name string
				if err := json.Unmarshal(rawName, &name); err != nil {
					return nil, i, errNotCanonical
				}
				b.ptr = appendToken(b.ptr, []byte(name))
			} else {
				b.ptr = appendToken(b.ptr, rawName[1:len(rawName)-1])
			}
			d, next, err := b.disclose(rawName, end+1)
			b.ptr = b.ptr[:at]
			if err != nil {
				return nil, i, err
			}
			b.digs = append(b.digs, d)
			i = next
		}
		if i >= len(c) {
			return nil, i, errNotCanonical
		}
		digests := b.digs[first:]
		slices.SortFunc(digests, func(x, y sdDigest) int { return bytes.Compare(x[:], y[:]) })
		out := make([]byte, 0, len(`{"_sd":[]}`)+len(digests)*(len(sdDigest{})+3))
		out = append(out, `{"_sd":[`...)
		for k := range digests {
			if k > 0 {
				out = append(out, ',')
			}
			out = append(append(append(out, '"'), digests[k][:]...), '"')
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
			at := len(b.ptr)
			b.ptr = strconv.AppendInt(append(b.ptr, '/'), int64(n), 10)
			d, next, err := b.disclose(nil, i)
			b.ptr = b.ptr[:at]
			if err != nil {
				return nil, i, err
			}
			out = append(append(append(out, `{"...":"`...), d[:]...), `"}`...)
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
// at pointer b.ptr whose value starts at b.canon[i], and returns its digest and where the value ends. The
// member's own disclosure comes before those of its children. Its JSON array is canonical as written: the
// salt is base64url, the name and a scalar value are canonical bytes of the data, and an object's or
// array's SD form is written canonically by value.
func (b *sdBuilder) disclose(rawName []byte, i int) (sdDigest, int, error) {
	at := len(b.out)
	if b.keep {
		b.out = append(b.out, SDMember{Path: string(b.ptr)})
	}
	v, next, err := b.value(i)
	if err != nil {
		return sdDigest{}, i, err
	}
	// b.arr and b.enc are free again: the children's disclosures are made.
	arr := append(b.arr[:0], `["`...)
	arr = append(b.appendSalt(arr), `",`...)
	if rawName != nil {
		arr = append(append(arr, rawName...), ',')
	}
	arr = append(append(arr, v...), ']')
	b.arr = arr
	b.enc = base64.RawURLEncoding.AppendEncode(b.enc[:0], arr)
	if b.keep {
		b.out[at].Disclosure = string(b.enc)
	}
	var d sdDigest
	sum := sha256.Sum256(b.enc)
	base64.RawURLEncoding.Encode(d[:], sum[:])
	return d, next, nil
}
