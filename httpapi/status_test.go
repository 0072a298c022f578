package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"seald.dev/seald"
)

// TestEveryCodeHasAStatus: the one table maps every error code of the domain, and the HTTP layer's own
// 405, to a status, and holds nothing else; a code added to seald without a status fails here.
func TestEveryCodeHasAStatus(t *testing.T) {
	codes := append([]seald.Code{codeMethod}, seald.Codes...)
	for _, c := range codes {
		if statusOf[c] < 400 || statusOf[c] > 599 {
			t.Errorf("code %q has the status %d", c, statusOf[c])
		}
	}
	if len(statusOf) != len(codes) {
		t.Errorf("the table has %d codes, the domain and the HTTP layer %d", len(statusOf), len(codes))
	}
	// The statuses docs/api.md promises for the codes whose status is not obvious from their names.
	for c, want := range map[seald.Code]int{seald.ECONFLICT: 409, seald.EOVERLOADED: 503, codeMethod: 405, seald.EGONE: 410} {
		if statusOf[c] != want {
			t.Errorf("%s: %d, want %d", c, statusOf[c], want)
		}
	}
	w := httptest.NewRecorder()
	(&Server{}).writeError(w, httptest.NewRequest("GET", "/x", nil), &seald.Error{Code: "no_such_code", Message: "m"})
	if w.Code != http.StatusInternalServerError {
		t.Errorf("an unknown code is %d, want 500", w.Code)
	}
}
