package migration

import (
	"testing"
	"testing/fstest"
)

func TestLoad(t *testing.T) {
	ms, err := Load(fstest.MapFS{
		"m/0002_b.sql": {Data: []byte("B")},
		"m/0001_a.sql": {Data: []byte("A")},
		"m/notes.txt":  {Data: []byte("ignored")},
	}, "m")
	if err != nil || len(ms) != 2 || ms[0].Version != 1 || ms[0].SQL != "A" || ms[1].Name != "0002_b.sql" {
		t.Fatalf("%+v %v", ms, err)
	}
	for name, fsys := range map[string]fstest.MapFS{
		"duplicate version": {"m/0001_a.sql": {}, "m/1_b.sql": {}},
		"no version":        {"m/init.sql": {}},
		"zero version":      {"m/0000_a.sql": {}},
	} {
		if _, err := Load(fsys, "m"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
