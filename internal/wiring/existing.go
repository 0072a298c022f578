package wiring

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"seald.dev/seald/postgres"
)

// RequireStore refuses a data dir or database serve has not created: the operator commands change an
// existing store and never make one (a mistyped --data-dir would otherwise get a new, empty store and a new
// master key, and keys that the real serve rejects). It creates nothing, not even the data dir.
func RequireStore(ctx context.Context, cfg *Config) error {
	create := func(flag, value string) string {
		return fmt.Sprintf("give the %s of an existing store, or create one by running 'seald serve %s %s' once", flag, flag, value)
	}
	if cfg.UsesPostgres() {
		ok, err := postgres.HasSchema(ctx, cfg.DatabaseSpec())
		if err != nil {
			return fmt.Errorf("--database %s: %w", redactDSN(cfg.DatabaseSpec()), err)
		}
		if !ok {
			return fmt.Errorf("no seald store in the database %s (its schema has no seald tables): %s",
				redactDSN(cfg.DatabaseSpec()), create("--database", "URL"))
		}
	} else if spec := cfg.DatabaseSpec(); !strings.HasPrefix(spec, "file:") && !strings.HasPrefix(spec, ":memory:") {
		fi, err := os.Stat(spec)
		switch {
		case errors.Is(err, os.ErrNotExist) && cfg.Database == "":
			return fmt.Errorf("no seald store at %s (no %s): %s", cfg.DataDir, spec, create("--data-dir", cfg.DataDir))
		case errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("no seald store at %s: %s", spec, create("--database", spec))
		case err != nil:
			return err
		case fi.IsDir() || fi.Size() == 0:
			return fmt.Errorf("%s is not a seald store: %s", spec, create("--data-dir", cfg.DataDir))
		}
	}
	if path := cfg.SecretsPath(); !fileExists(path) {
		return fmt.Errorf("no secrets file at %s, which serve creates with the store: give the --data-dir (or --secrets-file) "+
			"of the serve that uses this store", path)
	}
	return nil
}

func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir()
}
