// Package storetest is the contract suite of seald.Store: one set of tests that every store (package sqlite,
// package postgres) must pass, so that the domain can rely on one behaviour whatever the database. Each store
// package runs it from its own tests with a function that opens a store on a new, empty database.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"seald.dev/seald"
)

// Reopener is implemented by harness stores that can open another Store on their own database. The suite
// uses it to reopen a closed database and to run several Stores (as several processes would) on one
// database. Subtests that need it are skipped, visibly, when the harness does not provide it.
type Reopener interface {
	// Reopen opens another Store on the same database, closed when t ends. The receiver stays open unless
	// the test closes it.
	Reopen(t *testing.T) seald.Store
}

// RawSQL is implemented by harness stores that reach their database over a connection of their own,
// bypassing the Store: the suite uses it to show what the database itself refuses (changing the audit
// trail) and to look at the migrations table.
type RawSQL interface {
	// ExecSQL runs one statement.
	ExecSQL(ctx context.Context, query string) error
	// QueryInt runs a query that returns one integer.
	QueryInt(ctx context.Context, query string) (int64, error)
}

// BulkInserter is implemented by stores with a fast path to insert many records at once, for benchmarks.
type BulkInserter interface {
	BulkInsertRecords(ctx context.Context, records []*seald.Record) error
}

// Run runs the contract suite. open must return a Store on a new, empty database each time it is called, and
// close it when t ends; it is called once per subtest, so subtests never see each other's rows.
func Run(t *testing.T, open func(t *testing.T) seald.Store) {
	groups := []struct {
		name  string
		tests []test
	}{
		{"Tenants", tenantTests},
		{"Keys", keyTests},
		{"Records", recordTests},
		{"Status", statusTests},
		{"Jobs", jobTests},
		{"Reached", reachedTests},
		{"Anchoring", batchTests},
		{"Manifest", manifestTests},
		{"Sweep", sweepTests},
		{"Locks", lockTests},
		{"Webhooks", webhookTests},
		{"Identities", identityTests},
		{"Erasure", erasureTests},
		{"CredentialStatuses", credentialStatusTests},
		{"MailCredentials", mailCredentialTests},
		{"Database", databaseTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range g.tests {
				t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
			}
		})
	}
}

// test is one named subtest of the suite; it gets a store on an empty database.
type test struct {
	name string
	fn   func(t *testing.T, s seald.Store)
}

// base is the suite's clock: times carry milliseconds, which every store keeps, and nothing finer.
var base = time.Date(2025, 3, 14, 15, 9, 26, 535_000_000, time.UTC)

// uniq makes identifiers unique within a process, so that fixtures never collide.
var uniq atomic.Int64

func next() int64 { return uniq.Add(1) }

// randomHex returns n random bytes in lowercase hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// newBusiness returns a business and its first project, not stored.
func newBusiness(name string) (*seald.Business, *seald.Project) {
	n := next()
	b := &seald.Business{
		ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n), BusinessID: fmt.Sprintf("biz_%016d", n), Name: name,
		Description: "makes " + name, Logo: "https://example.com/" + name + ".png", Website: "https://example.com",
		DateRegistered: base,
	}
	return b, newProject(b)
}

// newProject returns a project of b, not stored.
func newProject(b *seald.Business) *seald.Project {
	n := next()
	return &seald.Project{
		ID: fmt.Sprintf("00000000-0000-4000-9000-%012d", n), ProjectID: fmt.Sprintf("prj_%016d", n),
		BusinessID: b.BusinessID, Name: fmt.Sprintf("project %d", n), Description: "a project",
		Logo: "https://example.com/p.png", Privacy: seald.PrivacyPublic, Network: seald.NetworkPolygon,
		Downloadable: true, CreatedAt: base.Add(time.Minute),
	}
}

// newKey returns a key of b (a subscription key when p is nil), not stored.
func newKey(b *seald.Business, p *seald.Project, created time.Time) *seald.Key {
	k := &seald.Key{
		ID: fmt.Sprintf("key_%016d", next()), Kind: seald.KeySubscription, BusinessID: b.BusinessID,
		Digest: randomHex(32), CreatedAt: created,
	}
	k.Prefix = k.Digest[:8]
	if p != nil {
		k.Kind, k.ProjectID = seald.KeyProject, p.ProjectID
	}
	return k
}

// tenant stores a new business with its project and returns them.
func tenant(t *testing.T, s seald.Store) (*seald.Business, *seald.Project) {
	t.Helper()
	b, p := newBusiness(fmt.Sprintf("business %d", next()))
	if err := s.CreateBusiness(t.Context(), b, p); err != nil {
		t.Fatalf("CreateBusiness: %v", err)
	}
	return b, p
}

// newRecord returns a PENDING, ACTIVE record of project p created at the given time, not stored.
func newRecord(p *seald.Project, created time.Time) *seald.Record {
	return &seald.Record{
		Reference: fmt.Sprintf("D-%012d", next()), Pipeline: seald.PipelinePolygon, BusinessID: p.BusinessID,
		ProjectID: p.ProjectID, Network: p.Network, Hash: randomHex(32), MimeType: "application/json",
		Privacy: p.Privacy, Status: seald.StatusActive, State: seald.StatePending,
		CreatedAt: created, UpdatedAt: created,
	}
}

// create stores r with a payload and jobs, failing the test on error.
func create(t *testing.T, s seald.Store, r *seald.Record, jobs ...*seald.Job) {
	t.Helper()
	if err := s.CreateRecord(t.Context(), r, []byte(`{"ref":"`+r.Reference+`"}`), jobs...); err != nil {
		t.Fatalf("CreateRecord %s: %v", r.Reference, err)
	}
}

// record reads a record back, failing the test on error.
func record(t *testing.T, s seald.Store, reference string) *seald.Record {
	t.Helper()
	r, err := s.Record(t.Context(), reference)
	if err != nil {
		t.Fatalf("Record %s: %v", reference, err)
	}
	return r
}

// ok fails the test at once on an error.
func ok(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// wantCode checks that err carries the given seald error code.
func wantCode(t *testing.T, what string, err error, code seald.Code) {
	t.Helper()
	if got := seald.ErrorCode(err); got != code {
		t.Errorf("%s: error code %q (%v), want %q", what, got, err, code)
	}
}

// equal compares with reflect.DeepEqual, which also tells a nil slice or pointer from an empty one and a UTC
// time from the same instant elsewhere, and shows both values as JSON when they differ.
func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s differs:\n got %s\nwant %s", what, show(got), show(want))
	}
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}

// claimAll claims every job due at now, of any of the given kinds.
func claimAll(t *testing.T, s seald.Store, kinds []string, now time.Time) []*seald.Job {
	t.Helper()
	jobs, err := s.ClaimJobs(t.Context(), kinds, 1000, now, time.Minute)
	ok(t, "ClaimJobs", err)
	return jobs
}

// allKinds are the job kinds the suite uses.
var allKinds = []string{seald.JobStore, seald.JobNotify, seald.JobFinish, seald.RevokeJob(seald.NetworkPolygon),
	seald.RevokeJob(seald.NetworkEOS), seald.JobErase}

// references lists the references of records.
func references(rs []*seald.Record) []string {
	refs := make([]string, len(rs))
	for i, r := range rs {
		refs[i] = r.Reference
	}
	return refs
}

// reopen returns another store on the database of s, or skips the test when the harness cannot.
func reopen(t *testing.T, s seald.Store) seald.Store {
	t.Helper()
	r, ok := s.(Reopener)
	if !ok {
		t.Skipf("the harness store %T does not implement storetest.Reopener: test skipped", s)
	}
	return r.Reopen(t)
}

// rawSQL returns the direct connection to the database of s, or skips the test when the harness has none.
func rawSQL(t *testing.T, s seald.Store) RawSQL {
	t.Helper()
	r, ok := s.(RawSQL)
	if !ok {
		t.Skipf("the harness store %T does not implement storetest.RawSQL: test skipped", s)
	}
	return r
}
