package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"seald.dev/seald"
)

// Erasable stores a business, its project and a record whose data key, password hash, e-mail (subject, body,
// recipient) and payload each carry a marker of n, and returns the record and the markers in that order
// (key, hash, subject, body, recipient, payload). The erasure tests of each store erase it and then look for
// the markers in the store's own files as raw bytes; a second Erasable beside it is the record that stays.
func Erasable(t testing.TB, s seald.Store, n int) (*seald.Record, []string) {
	t.Helper()
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	biz := &seald.Business{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n), BusinessID: fmt.Sprintf("biz_%016d", n),
		Name: fmt.Sprintf("erasure %d", n), DateRegistered: at}
	p := &seald.Project{ID: fmt.Sprintf("00000000-0000-4000-9000-%012d", n), ProjectID: fmt.Sprintf("prj_%016d", n),
		BusinessID: biz.BusinessID, Name: "p", Privacy: seald.PrivacyPublic, Network: seald.NetworkPolygon, CreatedAt: at}
	if err := s.CreateBusiness(t.Context(), biz, p); err != nil {
		t.Fatal(err)
	}
	m := fmt.Sprintf("%06d", n)
	// The recipient's marker is lower case: an address may be stored folded.
	markers := []string{"KEYMARK" + m, "HASHMARK" + m, "SUBJMARK" + m, "BODYMARK" + m, "tomark" + m, "DATAMARK" + m}
	r := &seald.Record{
		Reference: fmt.Sprintf("D-erase%06d", n), Pipeline: seald.PipelinePolygon, BusinessID: biz.BusinessID,
		ProjectID: p.ProjectID, Network: p.Network, Hash: strings.Repeat("ab", 32), MimeType: "application/json",
		Privacy: p.Privacy, Status: seald.StatusActive, State: seald.StatePending, CreatedAt: at, UpdatedAt: at,
		IsEmail: true, HasPassword: true, Downloadable: true,
		DataKey: "k3." + markers[0] + strings.Repeat("x", 40), PasswordHash: "$argon2id$v=19$" + markers[1],
		Mail: &seald.MailRequest{To: []string{markers[4] + "@example.com"}, Subject: markers[2], Body: markers[3]},
	}
	if err := s.CreateRecord(t.Context(), r, []byte(`{"name":"`+markers[5]+`"}`), &seald.Job{Kind: seald.JobStore, RunAt: at}); err != nil {
		t.Fatal(err)
	}
	return r, markers
}
