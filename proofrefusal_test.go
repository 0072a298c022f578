package seald_test

import (
	"fmt"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// TestProofRefusalIsInvalid: a refusal of package proof (a file the caller gave) is EINVALID with its own
// message, as the root's Errorf(EINVALID, ...) was before the formats moved out, so `seald proof verify`,
// `seald disclose` and the API say what is wrong; wrapped in an *Error, the *Error's code wins.
func TestProofRefusalIsInvalid(t *testing.T) {
	_, err := proof.Parse([]byte(`[]`))
	if seald.ErrorCode(err) != seald.EINVALID || seald.ErrorMessage(err) != err.Error() {
		t.Errorf("a refusal: code %q, message %q", seald.ErrorCode(err), seald.ErrorMessage(err))
	}
	if wrapped := fmt.Errorf("reading: %w", err); seald.ErrorCode(wrapped) != seald.EINVALID || seald.ErrorMessage(wrapped) != err.Error() {
		t.Errorf("a wrapped refusal: code %q, message %q", seald.ErrorCode(wrapped), seald.ErrorMessage(wrapped))
	}
	internal := &seald.Error{Code: seald.EINTERNAL, Op: "Disclosure", Err: err}
	if seald.ErrorCode(internal) != seald.EINTERNAL || seald.ErrorMessage(internal) != "internal error" {
		t.Errorf("a refusal of seald's own data: code %q, message %q", seald.ErrorCode(internal), seald.ErrorMessage(internal))
	}
}
