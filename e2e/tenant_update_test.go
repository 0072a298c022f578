package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestTenantUpdateWritesOnlyWhatIsGiven: through the API, two updates of different members at once both
// keep their change, round after round (the update read, changed and wrote back every column in three
// transactions, and one of two concurrent updates was lost), and a value with NUL or another control
// character is a 400 naming the member, with nothing written.
func TestTenantUpdateWritesOnlyWhatIsGiven(t *testing.T) {
	t.Parallel()
	in := startServe(t, t.TempDir(), nil)
	update := func(body map[string]any) *response {
		return in.call("PUT", "/tenant/update", in.Sub, in.API, "application/json", body)
	}
	for i := range 25 {
		desc, web := fmt.Sprint("description ", i), fmt.Sprintf("https://%d.example", i)
		pname, plogo := fmt.Sprint("project ", i), fmt.Sprintf("https://%d.example/logo.png", i)
		var wg sync.WaitGroup
		var a, b *response
		wg.Go(func() { a = update(map[string]any{"description": desc, "project_name": pname}) })
		wg.Go(func() { b = update(map[string]any{"website": web, "project_logo": plogo}) })
		wg.Wait()
		if a.Status != 200 || b.Status != 200 {
			t.Fatalf("round %d: %d %s, %d %s", i, a.Status, a.Raw, b.Status, b.Raw)
		}
		r := update(map[string]any{"logo": "https://logo.example"})
		if str(r.Body, "data.business.description") != desc || str(r.Body, "data.business.website") != web ||
			str(r.Body, "data.project.name") != pname || str(r.Body, "data.project.logo") != plogo {
			t.Fatalf("round %d: after two concurrent updates of different members: %s", i, r.Raw)
		}
	}
	before := update(map[string]any{"logo": "https://logo.example"})
	for _, member := range []string{"name", "description", "logo", "website", "project_name", "project_description", "project_logo"} {
		for _, bad := range []string{"Acme\x00Ltd", "Acme\x1b[2JLtd", "Acme\u0085Ltd", "Acme\rLtd", "Acme\u007fLtd"} {
			// With a valid member beside it, which must not be written either.
			body := map[string]any{"project_description": "half-written", member: bad}
			if member == "project_description" {
				body = map[string]any{"description": "half-written", member: bad}
			}
			r := update(body)
			if msg := str(r.Body, "error"); r.Status != 400 || !strings.HasPrefix(msg, member+" must not contain control characters") {
				t.Errorf("%s %q: %d %s, want 400 naming %s and control characters", member, bad, r.Status, r.Raw, member)
			}
		}
	}
	if after := update(map[string]any{"logo": "https://logo.example"}); string(after.Raw) != string(before.Raw) {
		t.Errorf("refused updates changed the tenant:\n%s\n%s", before.Raw, after.Raw)
	}
	if r := update(map[string]any{"description": "Line one\n\tLine two", "name": "  Acme Ltd  "}); r.Status != 200 ||
		str(r.Body, "data.business.description") != "Line one\n\tLine two" || str(r.Body, "data.business.name") != "Acme Ltd" {
		t.Errorf("a description of two lines and a name with spaces around it: %d %s", r.Status, r.Raw)
	}
}
