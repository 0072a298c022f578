package sqlstore_test

import (
	"errors"
	"fmt"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/internal/sqlstore"
)

// TestWrapCopiesBeforeAnnotating: an *seald.Error found in the chain may be shared (a package variable such
// as seald.ErrNoCaller, or one returned to several callers), so Wrap names its operation on a copy.
func TestWrapCopiesBeforeAnnotating(t *testing.T) {
	d := sqlstore.Dialect{Code: func(error) (seald.Code, string) { return "", "" }}
	shared := seald.Errorf(seald.ECONFLICT, "already exists")
	got := d.Wrap("sqlite.CreateKey", fmt.Errorf("insert: %w", shared))
	var e *seald.Error
	if !errors.As(got, &e) || e.Op != "sqlite.CreateKey" || e.Code != seald.ECONFLICT || e.Message != "already exists" {
		t.Fatalf("wrapped: %#v", got)
	}
	if shared.Op != "" {
		t.Errorf("the error found was changed: Op %q", shared.Op)
	}
	if again := d.Wrap("sqlite.Other", shared); again.(*seald.Error).Op != "sqlite.Other" {
		t.Errorf("a second caller sees %q", again.(*seald.Error).Op)
	}
	if seald.ErrorCode(d.Wrap("op", errors.New("driver"))) != seald.EINTERNAL {
		t.Error("an unknown driver error is not internal")
	}
}
