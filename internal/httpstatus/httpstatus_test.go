package httpstatus_test

import (
	"errors"
	"net/http"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/internal/httpstatus"
)

// TestEveryCode: every code of the domain has a 4xx or 5xx status and the table holds nothing else; an
// unknown code and a plain error are 500.
func TestEveryCode(t *testing.T) {
	for _, c := range seald.Codes {
		if s := httpstatus.Table[c]; s < 400 || s > 599 {
			t.Errorf("code %q has the status %d", c, s)
		}
	}
	if len(httpstatus.Table) != len(seald.Codes) {
		t.Errorf("the table has %d codes, the domain %d", len(httpstatus.Table), len(seald.Codes))
	}
	if s := httpstatus.Of(&seald.Error{Code: "no_such_code"}); s != http.StatusInternalServerError {
		t.Errorf("unknown code: %d", s)
	}
	if s := httpstatus.Of(errors.New("plain")); s != http.StatusInternalServerError {
		t.Errorf("plain error: %d", s)
	}
	if s := httpstatus.Of(seald.Errorf(seald.EGONE, "erased")); s != http.StatusGone {
		t.Errorf("EGONE: %d", s)
	}
}
