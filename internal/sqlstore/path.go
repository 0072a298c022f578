package sqlstore

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// The stored form of a Merkle path (record_paths.merkle_path and disclosure_path; issue 45). A path is a list
// of nodes, leaf to root, each "0x" and 64 lowercase hex digits: 69 bytes of JSON a node, where the node is 32
// bytes. A path whose every node has that form is kept as pathBinary followed by its nodes' bytes (an empty
// path: the byte alone); any other path as its JSON text, the form every path had before, which a database
// made before still holds and which is read as ever. The two cannot be mistaken: JSON text starts with '['.
// NULL is no path. On PostgreSQL the columns are bytea (migration 0016); SQLite keeps whatever it is given.
//
// Written by hand: it is a fixed-width concatenation, and the database does the rest.

// pathBinary opens the binary form of a path.
const pathBinary = 0x01

// pathValue is the stored form of path p; none is an untyped nil, which every driver binds as NULL, not a
// typed nil []byte.
func pathValue(p []string) (any, error) {
	b, err := pathBytes(p)
	if b == nil || err != nil {
		return nil, err
	}
	return b, nil
}

// pathBytes is the stored form of path p, nil for none.
func pathBytes(p []string) ([]byte, error) {
	if p == nil {
		return nil, nil
	}
	out := make([]byte, 1, 1+32*len(p))
	out[0] = pathBinary
	for _, n := range p {
		if len(n) != 66 || n[:2] != "0x" {
			return json.Marshal(p)
		}
		var node [32]byte
		if _, err := hex.Decode(node[:], []byte(n[2:])); err != nil || hex.EncodeToString(node[:]) != n[2:] {
			return json.Marshal(p) // not hex, or not lowercase: kept as it came
		}
		out = append(out, node[:]...)
	}
	return out, nil
}

// pathFrom reads the stored form b of a path (column what, for the error) into p; NULL leaves it nil.
func pathFrom(what string, b []byte, p *[]string) error {
	switch {
	case b == nil:
		return nil
	case len(b) > 0 && b[0] == pathBinary:
		if (len(b)-1)%32 != 0 {
			return fmt.Errorf("%s: %d bytes after the binary form's first are not whole nodes of 32", what, len(b)-1)
		}
		nodes := make([]string, 0, (len(b)-1)/32)
		for i := 1; i < len(b); i += 32 {
			nodes = append(nodes, "0x"+hex.EncodeToString(b[i:i+32]))
		}
		*p = nodes
		return nil
	}
	s := string(b)
	return jsonInto(what, &s, p)
}
