package evm

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

func TestLoadKeyFile(t *testing.T) {
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	hexKey := hex.EncodeToString(crypto.FromECDSA(key))
	dir := t.TempDir()
	for _, tt := range []struct {
		name, content string
		ok            bool
	}{
		{"plain", hexKey, true},
		{"0x and newline", "0x" + hexKey + "\n", true},
		{"spaces", "  " + strings.ToUpper(hexKey) + "  \n", true},
		{"short", hexKey[:62], false},
		{"not hex", strings.Repeat("zz", 32), false},
		{"zero key", strings.Repeat("00", 32), false},
		{"empty", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := LoadKeyFile(path)
			if tt.ok != (err == nil) {
				t.Fatalf("err = %v, want ok %v", err, tt.ok)
			}
			if tt.ok && crypto.PubkeyToAddress(got.PublicKey) != crypto.PubkeyToAddress(key.PublicKey) {
				t.Fatal("loaded another key")
			}
			if err != nil && strings.Contains(err.Error(), hexKey[:16]) {
				t.Fatal("the error message leaks key material")
			}
		})
	}
	if _, err := LoadKeyFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file: no error")
	}
}

func TestLoadOrCreateKeyIsStable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k")
	a, err := loadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := loadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Equal(b) {
		t.Error("second load made a new key")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
}
