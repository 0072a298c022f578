package postgres

import (
	"testing"

	"seald.dev/seald/storetest"
)

// A record's state row keeps its page through the pipeline's steps (migration 0018: the table keeps room
// for its rows to grow), so that each step's version is logged as the bytes it changed rather than whole on
// another page. Enough records are walked for their first versions to fill several pages.
func TestStateVersionsStayOnTheirPage(t *testing.T) {
	h := openDSN(t, freshSchema(t))
	ctx := t.Context()
	const n = 240
	storetest.Walk(t, h, n, func(step string) {
		if step == "created" {
			if err := h.ExecSQL(ctx, `CREATE TABLE first_pages AS
				SELECT seq, (ctid::text::point)[0] AS page FROM record_states`); err != nil {
				t.Fatal(err)
			}
		}
	})
	pages, err := h.QueryInt(ctx, `SELECT count(DISTINCT page) FROM first_pages`)
	if err != nil {
		t.Fatal(err)
	}
	stayed, err := h.QueryInt(ctx, `SELECT count(*) FROM record_states s JOIN first_pages f USING (seq)
		WHERE (s.ctid::text::point)[0] = f.page AND s.state = 'COMPLETED'`)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of %d completed rows on the page of their first version (%d pages at acceptance)", stayed, n, pages)
	if pages < 4 || stayed < n*3/4 {
		t.Errorf("%d of %d completed rows on the page of their first version (%d pages at acceptance), want three quarters or more, on 4 pages or more", stayed, n, pages)
	}
}
