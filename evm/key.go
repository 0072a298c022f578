package evm

import (
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"
)

// LoadKeyFile reads the secp256k1 private key that signs anchors on a real network (--chain-key-file): a
// file holding the key as 64 hex digits, with or without 0x and surrounding whitespace. A plain hex file is
// what operators get from their secret store; an encrypted keystore would need a passphrase from
// somewhere, which moves the secret instead of protecting it.
func LoadKeyFile(path string) (*ecdsa.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("chain key file: %w", err)
	}
	key, err := parseHexKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("chain key file %s: %w", path, err)
	}
	return key, nil
}

func parseHexKey(s string) (*ecdsa.PrivateKey, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s) != 64 {
		return nil, errors.New("want a private key of 64 hex digits")
	}
	if _, err := hex.DecodeString(s); err != nil {
		return nil, errors.New("the private key is not hex")
	}
	key, err := crypto.HexToECDSA(s)
	if err != nil {
		return nil, fmt.Errorf("not a secp256k1 private key: %w", err)
	}
	return key, nil
}

// loadOrCreateKey returns the key in path, generating it first (mode 0600) when the file does not exist,
// so the embedded chain keeps the same funded account, and so the same contract owner, across restarts.
func loadOrCreateKey(path string) (*ecdsa.PrivateKey, error) {
	key, err := LoadKeyFile(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	key, err = crypto.GenerateKey()
	if err != nil {
		return nil, err
	}
	data := []byte(hex.EncodeToString(crypto.FromECDSA(key)) + "\n")
	if err := writeFileAtomic(path, data, 0o600); err != nil {
		return nil, err
	}
	return key, nil
}

// writeFileAtomic writes data to a temporary file in the same directory, syncs it and renames it over
// path, so a crash leaves either the old content or the new, never a torn file.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
