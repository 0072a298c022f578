package wiring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"seald/secret"

	"seald"
)

// LoadSecrets reads the secrets file (--secrets-file, default <data-dir>/secrets.json), creating it with
// fresh keys at first start; created says it did.
func LoadSecrets(path string) (*secret.Keys, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		k, err := secret.Generate()
		if err != nil {
			return nil, false, err
		}
		if b, err = k.Marshal(); err == nil {
			err = writePrivate(path, b)
		}
		if err != nil {
			return nil, false, err
		}
		return k, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	k, err := secret.Parse(b)
	if err != nil {
		return nil, false, fmt.Errorf("%s is not a valid secrets file", path)
	}
	return k, false, nil
}

// WritePrivateJSON writes v atomically to path with mode 0600: a temporary file in the same directory,
// synced, then renamed over path.
func WritePrivateJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writePrivate(path, append(b, '\n'))
}

// writePrivate writes b atomically to path with mode 0600.
func writePrivate(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
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
