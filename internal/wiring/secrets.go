package wiring

import (
	"bytes"
	"context"
	"io"

	"filippo.io/age"
	"filippo.io/age/armor"

	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"seald.dev/seald/secret"

	"seald.dev/seald"
)

// PassphraseEnv names the environment variable whose value, when set, protects the secrets file: the file is
// then an age file encrypted with that passphrase (scrypt), never written in the clear.
const PassphraseEnv = "SEALD_SECRETS_PASSPHRASE"

// LoadSecrets reads the secrets file (--secrets-file, default <data-dir>/secrets.json), creating it with
// fresh keys at first start; created says it did. With a passphrase, the file is decrypted with it (and a new
// one encrypted); a file in the clear still loads, and is protected at the next SaveSecrets.
func LoadSecrets(path string, passphrase string) (*secret.Keys, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		k, err := secret.Generate()
		if err != nil {
			return nil, false, err
		}
		if err := SaveSecrets(path, passphrase, k); err != nil {
			return nil, false, err
		}
		return k, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	armored := bytes.HasPrefix(b, []byte(armor.Header))
	if armored || bytes.HasPrefix(b, []byte("age-encryption.org/")) {
		if passphrase == "" {
			return nil, false, fmt.Errorf("%s is protected with a passphrase: set %s", path, PassphraseEnv)
		}
		id, err := age.NewScryptIdentity(passphrase)
		if err != nil {
			return nil, false, err
		}
		var src io.Reader = bytes.NewReader(b)
		if armored {
			src = armor.NewReader(src)
		}
		r, err := age.Decrypt(src, id)
		if err != nil {
			return nil, false, fmt.Errorf("%s does not open with the passphrase in %s: %v", path, PassphraseEnv, err)
		}
		if b, err = io.ReadAll(r); err != nil {
			return nil, false, err
		}
	}
	k, err := secret.Parse(b)
	if err != nil {
		return nil, false, fmt.Errorf("%s is not a valid secrets file", path)
	}
	return k, false, nil
}

// SaveSecrets writes the keys atomically to path (mode 0600), encrypted with age under passphrase when one
// is given. age is used rather than a format of our own: it is a small, reviewed, well-kept file format and
// library whose scrypt recipient is made for exactly this.
func SaveSecrets(path, passphrase string, k *secret.Keys) error {
	b, err := k.Marshal()
	if err != nil {
		return err
	}
	if passphrase != "" {
		r, err := age.NewScryptRecipient(passphrase)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		aw := armor.NewWriter(&buf)
		w, err := age.Encrypt(aw, r)
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		if err := aw.Close(); err != nil {
			return err
		}
		b = buf.Bytes()
	}
	return writePrivate(path, b)
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
