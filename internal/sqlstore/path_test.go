package sqlstore

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// A path of canonical nodes takes 32 bytes a node after its first byte, and reads back the same; any other
// path is kept as its JSON text, which reads back as before; NULL is no path.
func TestPathForms(t *testing.T) {
	node := "0x" + strings.Repeat("0a", 31) + "ff"
	for _, c := range []struct {
		name    string
		path    []string
		compact bool
	}{
		{"none", nil, false},
		{"empty", []string{}, true},
		{"two nodes", []string{node, "0x" + strings.Repeat("5b", 32)}, true},
		{"upper case", []string{"0x" + strings.ToUpper(node[2:])}, false},
		{"no prefix", []string{node[2:] + "00"}, false},
		{"short", []string{node[:64]}, false},
	} {
		b, err := pathBytes(c.path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		switch {
		case c.path == nil:
			if b != nil {
				t.Errorf("%s: stored as %q, want NULL", c.name, b)
			}
		case c.compact:
			if len(b) != 1+32*len(c.path) || b[0] != pathBinary {
				t.Errorf("%s: stored in %d bytes (%x), want the compact form's %d", c.name, len(b), b, 1+32*len(c.path))
			}
		default:
			if want, _ := json.Marshal(c.path); !bytes.Equal(b, want) {
				t.Errorf("%s: stored as %q, want its JSON %s", c.name, b, want)
			}
		}
		var got []string
		if err := pathFrom("path", b, &got); err != nil || !reflect.DeepEqual(got, c.path) {
			t.Errorf("%s: read back %#v (%v), want %#v", c.name, got, err, c.path)
		}
	}
	var got []string
	if err := pathFrom("merkle_path", []byte{pathBinary, 1, 2}, &got); err == nil || !strings.Contains(err.Error(), "merkle_path") {
		t.Errorf("a compact form cut short: %v", err)
	}
}
