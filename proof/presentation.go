package proof

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"

	"seald.dev/seald/jcs"
)

// DisclosureVersion is the format version of disclosure packages and presentations.
const DisclosureVersion = 1

// DisclosureAnchor is where a record's commitment is anchored: the chain, the token, the Merkle path of the
// disclosure leaf keccak256(0x02 || uint256(token_id) || commitment) to the batch root, and the transaction
// that stored the root. A verifier recomputes the leaf; the root must be the one the contract holds for the
// token.
type DisclosureAnchor struct {
	Network     string   `json:"network"`
	ChainID     string   `json:"chain_id"`
	ChainName   string   `json:"chain_name,omitempty"`
	Contract    string   `json:"contract"`
	TokenID     string   `json:"token_id"`
	MerklePath  []string `json:"merkle_path"` // 0x hex nodes, disclosure leaf to root
	Root        string   `json:"root"`
	TxHash      string   `json:"tx_hash"`
	BlockNumber uint64   `json:"block_number"`
}

// DisclosurePackage is what the record's owner gets (GET /verification/api/v1/disclosure): the SD payload,
// every disclosure with the JSON pointer of its member, and the anchor. It holds every member's value and
// salt, so it is handed to the holder only; the holder makes presentations from it (`seald disclose`).
type DisclosurePackage struct {
	Type      string `json:"type"` // "seald-disclosure-package"
	Version   int    `json:"version"`
	Reference string `json:"reference"`
	DisclosureAnchor
	SDPayload   json.RawMessage `json:"sd_payload"`
	Commitment  string          `json:"commitment"` // lowercase hex SHA-256 of the canonical sd_payload
	Disclosures []SDMember      `json:"disclosures"`
	// SDJWT is the same package as an RFC 9901 SD-JWT (sdjwt.go): the issuer-signed JWT and every disclosure.
	SDJWT string `json:"sd_jwt"`
}

// Presentation is what a holder shows a verifier: the SD payload, only the chosen disclosures (and those of
// their parents) as RFC 9901 encoded strings, and the anchor. It holds no value, salt or digest of a hidden
// member that allows a guess to be confirmed: hidden members appear only as salted digests.
type Presentation struct {
	Type    string `json:"type"` // "seald-presentation"
	Version int    `json:"version"`
	DisclosureAnchor
	SDPayload   json.RawMessage `json:"sd_payload"`
	Disclosures []string        `json:"disclosures"`
	// SDJWT is the presentation as an RFC 9901 SD-JWT: the issuer-signed JWT and the chosen disclosures.
	SDJWT string `json:"sd_jwt,omitempty"`
}

// Type members of the two files.
const (
	TypeDisclosurePackage = "seald-disclosure-package"
	TypePresentation      = "seald-presentation"
)

// ParseMemberPath reads a member path of `seald disclose --members`: a JSON pointer ("/grades/math",
// "/items/0", RFC 6901 escapes) or dotted names ("grades.math", "items.0"). It returns the JSON pointer.
func ParseMemberPath(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", refuse("empty member path")
	}
	if strings.HasPrefix(s, "/") {
		return s, nil
	}
	parts := strings.Split(s, ".")
	for i, p := range parts {
		if p == "" {
			return "", refuse("member path %q has an empty name", s)
		}
		parts[i] = pointerToken(p)
	}
	return "/" + strings.Join(parts, "/"), nil
}

// Present makes a presentation of the members at pointers (ParseMemberPath): each member with everything
// beneath it, and its ancestors' disclosures (whose values hold only digests of their other members). A
// pointer the package has no member for is refused.
func (p *DisclosurePackage) Present(pointers []string) (*Presentation, error) {
	keep := map[string]bool{}
	for _, ptr := range pointers {
		found := false
		for _, d := range p.Disclosures {
			if d.Path == ptr || strings.HasPrefix(d.Path, ptr+"/") {
				keep[d.Path], found = true, true
			}
		}
		if !found {
			return nil, refuse("the package has no member %s", ptr)
		}
		for a := ptr; ; {
			i := strings.LastIndex(a, "/")
			if i <= 0 {
				break
			}
			a = a[:i]
			keep[a] = true
		}
	}
	out := &Presentation{Type: TypePresentation, Version: DisclosureVersion, DisclosureAnchor: p.DisclosureAnchor,
		SDPayload: p.SDPayload, Disclosures: []string{}}
	for _, d := range p.Disclosures {
		if keep[d.Path] {
			out.Disclosures = append(out.Disclosures, d.Disclosure)
		}
	}
	if jwt, _, ok := strings.Cut(p.SDJWT, "~"); ok && jwt != "" {
		out.SDJWT = JoinSDJWT(jwt, out.Disclosures)
	}
	return out, nil
}

// ParsePresentation decodes a presentation and checks its shape (not its truth).
func ParsePresentation(b []byte) (*Presentation, error) {
	var p Presentation
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, refuse("not a presentation: %v", err)
	}
	if p.Type != TypePresentation {
		return nil, refuse("not a presentation: type is %q, not %q", p.Type, TypePresentation)
	}
	if p.Version != DisclosureVersion {
		return nil, refuse("presentation version %d is not supported (seald reads %d)", p.Version, DisclosureVersion)
	}
	for _, f := range []struct{ name, v string }{
		{"network", p.Network}, {"chain_id", p.ChainID}, {"contract", p.Contract}, {"token_id", p.TokenID},
		{"root", p.Root}, {"tx_hash", p.TxHash},
	} {
		if f.v == "" {
			return nil, refuse("presentation: %s is missing", f.name)
		}
	}
	if _, err := strconv.ParseUint(p.TokenID, 10, 64); err != nil {
		return nil, refuse("presentation: token_id %q is not a decimal token id", p.TokenID)
	}
	if len(p.SDPayload) == 0 {
		return nil, refuse("presentation: sd_payload is missing")
	}
	return &p, nil
}

// ParseDisclosurePackage decodes a disclosure package (bare, or the API's answer) and checks its shape.
func ParseDisclosurePackage(b []byte) (*DisclosurePackage, error) {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(b, &env) == nil && len(env.Data) > 0 && env.Data[0] == '{' {
		b = env.Data
	}
	var p DisclosurePackage
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, refuse("not a disclosure package: %v", err)
	}
	if p.Type != TypeDisclosurePackage || p.Version != DisclosureVersion {
		return nil, refuse("not a disclosure package of version %d (type %q, version %d)", DisclosureVersion, p.Type, p.Version)
	}
	if len(p.SDPayload) == 0 || p.TokenID == "" || p.Root == "" {
		return nil, refuse("disclosure package: sd_payload, token_id or root is missing")
	}
	return &p, nil
}

// Revealed is what a presentation proves once its disclosures are checked against its payload: the disclosed
// members (hidden ones absent) and the payload's commitment, which the anchor must then prove on chain.
type Revealed struct {
	Members    json.RawMessage // a JSON object of the disclosed members, in their places
	Paths      []string        // the JSON pointer of each disclosed member, in document order
	Commitment [32]byte
}

// Reveal checks a presentation's disclosures against its SD payload (RFC 9901 section 7.1): every
// disclosure's digest must appear exactly once in the payload or in a disclosed parent, and nothing else may
// be in it; it returns the disclosed members and the payload's commitment. Any mismatch (an altered value,
// name or path) is refused.
func (p *Presentation) Reveal() (*Revealed, error) {
	payload, err := jcs.Canonicalize(bytes.TrimSpace(p.SDPayload))
	if err != nil {
		return nil, refuse("presentation: sd_payload: %v", err)
	}
	var top map[string]any
	if err := decodeNumbers(payload, &top); err != nil || top == nil {
		return nil, refuse("presentation: sd_payload is not a JSON object")
	}
	if alg, _ := top["_sd_alg"].(string); alg != SDAlg {
		return nil, refuse("presentation: _sd_alg must be %q", SDAlg)
	}
	delete(top, "_sd_alg")
	r := &revealer{byDigest: map[string]int{}, used: make([]bool, len(p.Disclosures))}
	for i, enc := range p.Disclosures {
		d := SDDigest(enc)
		if _, dup := r.byDigest[d]; dup {
			return nil, refuse("disclosure %d is given twice", i+1)
		}
		r.byDigest[d] = i
		raw, err := base64.RawURLEncoding.DecodeString(enc)
		if err != nil {
			return nil, refuse("disclosure %d is not base64url", i+1)
		}
		var arr []any
		if err := decodeNumbers(raw, &arr); err != nil || len(arr) < 2 || len(arr) > 3 {
			return nil, refuse("disclosure %d is not a JSON array of 2 or 3 elements", i+1)
		}
		if _, ok := arr[0].(string); !ok {
			return nil, refuse("disclosure %d: its salt is not a string", i+1)
		}
		r.arrays = append(r.arrays, arr)
	}
	out, err := r.walk("", top)
	if err != nil {
		return nil, err
	}
	for i, u := range r.used {
		if !u {
			return nil, refuse("disclosure %d is not in the sealed payload: its value, name or place was altered", i+1)
		}
	}
	members, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &Revealed{Members: members, Paths: r.paths, Commitment: sha256.Sum256(payload)}, nil
}

func decodeNumbers(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

type revealer struct {
	byDigest map[string]int
	arrays   [][]any
	used     []bool
	paths    []string
}

// take returns the disclosure of digest d, if the presentation has it, marking it used.
func (r *revealer) take(d string) ([]any, bool, error) {
	i, ok := r.byDigest[d]
	if !ok {
		return nil, false, nil
	}
	if r.used[i] {
		return nil, false, refuse("disclosure %d is referenced twice by the payload", i+1)
	}
	r.used[i] = true
	return r.arrays[i], true, nil
}

func (r *revealer) walk(pointer string, v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			if k == "_sd" {
				continue
			}
			// A plain member is part of the committed payload; seald's payloads have none.
			w, err := r.walk(pointer+"/"+pointerToken(k), e)
			if err != nil {
				return nil, err
			}
			out[k] = w
		}
		sd, has := v["_sd"]
		if !has {
			return out, nil
		}
		list, ok := sd.([]any)
		if !ok {
			return nil, refuse("presentation: _sd at %q is not an array", pointer)
		}
		for _, e := range list {
			d, ok := e.(string)
			if !ok {
				return nil, refuse("presentation: _sd at %q holds a non-string digest", pointer)
			}
			arr, ok, err := r.take(d)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			if len(arr) != 3 {
				return nil, refuse("a disclosure of an array element stands for a member of %q", pointer)
			}
			name, ok := arr[1].(string)
			if !ok || name == "_sd" || name == "..." {
				return nil, refuse("a disclosure in %q has no valid member name", pointer)
			}
			if _, dup := out[name]; dup {
				return nil, refuse("member %q of %q is disclosed twice", name, pointer)
			}
			p := pointer + "/" + pointerToken(name)
			r.paths = append(r.paths, p)
			w, err := r.walk(p, arr[2])
			if err != nil {
				return nil, err
			}
			out[name] = w
		}
		return out, nil
	case []any:
		out := []any{}
		for i, e := range v {
			p := pointer + "/" + strconv.Itoa(i)
			if m, ok := e.(map[string]any); ok && len(m) == 1 {
				if d, ok := m["..."].(string); ok {
					arr, ok, err := r.take(d)
					if err != nil {
						return nil, err
					}
					if !ok {
						continue
					}
					if len(arr) != 2 {
						return nil, refuse("a disclosure of a member stands for an element of %q", pointer)
					}
					r.paths = append(r.paths, p)
					w, err := r.walk(p, arr[1])
					if err != nil {
						return nil, err
					}
					out = append(out, w)
					continue
				}
			}
			w, err := r.walk(p, e)
			if err != nil {
				return nil, err
			}
			out = append(out, w)
		}
		return out, nil
	}
	return v, nil
}

// DescribePaths lists pointers for people: "/grades/math" as "grades.math".
func DescribePaths(paths []string) string {
	out := make([]string, len(paths))
	for i, p := range paths {
		parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
		for j, t := range parts {
			parts[j] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		}
		out[i] = strings.Join(parts, ".")
	}
	return strings.Join(out, ", ")
}
