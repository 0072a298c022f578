package wiring

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"seald"
)

// secretsFile is the service's own keys in the data dir, mode 0600: the master key (wraps record data keys),
// the OVI key and the Ed25519 signing seed.
type secretsFile struct {
	Master     []byte `json:"master_key"`
	OVI        []byte `json:"ovi_key"`
	SigningKey []byte `json:"signing_seed"`
}

// LoadSecrets reads the secrets file (--secrets-file, default <data-dir>/secrets.json), creating it with
// fresh keys at first start; created says it did.
func LoadSecrets(path string) (*seald.Secrets, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		s, err := seald.NewSecrets()
		if err != nil {
			return nil, false, err
		}
		f := secretsFile{Master: s.Master[:], OVI: s.OVI[:], SigningKey: s.Signing.Seed()}
		if err := WritePrivateJSON(path, f); err != nil {
			return nil, false, err
		}
		return s, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	var f secretsFile
	if err := json.Unmarshal(b, &f); err != nil || len(f.Master) != 32 || len(f.OVI) != 32 || len(f.SigningKey) != ed25519.SeedSize {
		return nil, false, fmt.Errorf("%s is not a valid secrets file", path)
	}
	s := &seald.Secrets{Signing: ed25519.NewKeyFromSeed(f.SigningKey)}
	copy(s.Master[:], f.Master)
	copy(s.OVI[:], f.OVI)
	return s, false, nil
}

// WritePrivateJSON writes v atomically to path with mode 0600: a temporary file in the same directory,
// synced, then renamed over path.
func WritePrivateJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// RefuseNewSecrets stops a start that has just created a secrets file while the store already holds
// tenants: that instance would encrypt with a master key and sign with a key the others do not have. It is
// the usual mistake when a second instance is added without copying the first one's secrets file.
func RefuseNewSecrets(ctx context.Context, store seald.Store, path string) error {
	n, err := store.CountBusinesses(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	_ = os.Remove(path)
	return fmt.Errorf("%s did not exist, but the database already has %d business(es): copy the secrets file "+
		"of the instance that created them (--secrets-file), never start an instance with new secrets on a used database", path, n)
}
