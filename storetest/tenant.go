package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"seald.dev/seald"
)

var tenantTests = []test{
	{"RoundTrip", testBusinessRoundTrip},
	{"NotFound", testBusinessNotFound},
	{"DuplicateName", testBusinessDuplicateName},
	{"DuplicateID", testBusinessDuplicateID},
	{"CreateProject", testCreateProject},
	{"CreateProjectUnknownBusiness", testCreateProjectUnknownBusiness},
	{"DuplicateProject", testDuplicateProject},
	{"Times", testTenantTimes},
	{"ProjectRate", testProjectRate},
	{"UpdateDetails", testUpdateDetails},
	{"UpdateConcurrentFields", testUpdateConcurrentFields},
}

// A business's and a project's details change as given, and nothing else of them: a field left nil keeps
// its value. The answer is the rows as the update left them. Another business's name is ECONFLICT; unknown
// ids, and a project of another business, are ENOTFOUND; a refused update writes nothing, not even its
// business part.
func testUpdateDetails(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, p := tenant(t, s)
	other, otherProject := tenant(t, s)
	name, desc, logo, web := "renamed "+b.Name, "new description", "https://logo.example/x.png", "https://example.com"
	gb, gp, err := s.UpdateTenant(ctx, &seald.TenantChange{BusinessID: b.BusinessID, Name: &name, Description: &desc, Logo: &logo, Website: &web})
	ok(t, "UpdateTenant of the business", err)
	b.Name, b.Description, b.Logo, b.Website = name, desc, logo, web
	equal(t, "the business it answers", gb, b)
	if gp != nil {
		t.Errorf("a project answered for an update without one: %+v", gp)
	}
	got, err := s.Business(ctx, b.BusinessID)
	ok(t, "Business", err)
	equal(t, "updated Business", got, b)

	pname, pdesc, retain := "renamed project", "project description", 30*24*time.Hour
	gb, gp, err = s.UpdateTenant(ctx, &seald.TenantChange{BusinessID: b.BusinessID, ProjectID: p.ProjectID,
		ProjectName: &pname, ProjectDescription: &pdesc, Retain: &retain})
	ok(t, "UpdateTenant of the project", err)
	p.Name, p.Description, p.Retain = pname, pdesc, retain
	equal(t, "the business it answers, unchanged", gb, b)
	equal(t, "the project it answers", gp, p)
	saved, err := s.Project(ctx, p.ProjectID)
	ok(t, "Project", err)
	equal(t, "updated Project", saved, p)

	clash := other.Name
	_, _, err = s.UpdateTenant(ctx, &seald.TenantChange{BusinessID: b.BusinessID, Name: &clash})
	wantCode(t, "UpdateTenant to another business's name", err, seald.ECONFLICT)
	_, _, err = s.UpdateTenant(ctx, &seald.TenantChange{BusinessID: "biz_nothing", Description: &desc})
	wantCode(t, "UpdateTenant of no business", err, seald.ENOTFOUND)
	_, _, err = s.UpdateTenant(ctx, &seald.TenantChange{BusinessID: "biz_nothing"})
	wantCode(t, "UpdateTenant of no business, nothing given", err, seald.ENOTFOUND)
	_, _, err = s.UpdateTenant(ctx, &seald.TenantChange{BusinessID: b.BusinessID, ProjectID: "prj_nothing", ProjectName: &pname})
	wantCode(t, "UpdateTenant of no project", err, seald.ENOTFOUND)
	half := "half-written"
	_, _, err = s.UpdateTenant(ctx, &seald.TenantChange{BusinessID: b.BusinessID, Name: &half, ProjectID: otherProject.ProjectID, ProjectName: &half})
	wantCode(t, "UpdateTenant of another business's project", err, seald.ENOTFOUND)
	got, err = s.Business(ctx, b.BusinessID)
	ok(t, "Business", err)
	equal(t, "the business after a refused update", got, b)
	op, err := s.Project(ctx, otherProject.ProjectID)
	ok(t, "Project", err)
	equal(t, "the other business's project after a refused update", op, otherProject)
}

// Updates of different fields of one business and project, two at a time, many times over: each keeps its
// change. A read-modify-write of the whole row would lose one of them.
func testUpdateConcurrentFields(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, p := tenant(t, s)
	for i := range 20 {
		desc, web := fmt.Sprint("description ", i), fmt.Sprintf("https://%d.example", i)
		pname, plogo := fmt.Sprint("project ", i), fmt.Sprintf("https://%d.example/logo.png", i)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		wg.Go(func() {
			_, _, errs[0] = s.UpdateTenant(ctx, &seald.TenantChange{BusinessID: b.BusinessID, Description: &desc,
				ProjectID: p.ProjectID, ProjectName: &pname})
		})
		wg.Go(func() {
			_, _, errs[1] = s.UpdateTenant(ctx, &seald.TenantChange{BusinessID: b.BusinessID, Website: &web,
				ProjectID: p.ProjectID, ProjectLogo: &plogo})
		})
		wg.Wait()
		ok(t, "UpdateTenant of the description and project name", errs[0])
		ok(t, "UpdateTenant of the website and project logo", errs[1])
		gb, err := s.Business(ctx, b.BusinessID)
		ok(t, "Business", err)
		gp, err := s.Project(ctx, p.ProjectID)
		ok(t, "Project", err)
		if gb.Description != desc || gb.Website != web || gb.Name != b.Name || gp.Name != pname || gp.Logo != plogo ||
			gp.Description != p.Description {
			t.Fatalf("round %d: business %q %q %q, project %q %q %q; want %q %q %q, %q %q %q", i, gb.Name, gb.Description,
				gb.Website, gp.Name, gp.Description, gp.Logo, b.Name, desc, web, pname, p.Description, plogo)
		}
	}
}

// A project's own rate is kept as given at creation and as set later; setting it on no project is ENOTFOUND.
func testProjectRate(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, p := newBusiness("rated")
	p.RateLimit, p.RateBurst = 12.5, 40
	ok(t, "CreateBusiness", s.CreateBusiness(ctx, b, p))
	got, err := s.Project(ctx, p.ProjectID)
	ok(t, "Project", err)
	if got.RateLimit != 12.5 || got.RateBurst != 40 {
		t.Errorf("rate after creation: %v/s burst %d, want 12.5/s burst 40", got.RateLimit, got.RateBurst)
	}
	ok(t, "SetProjectRate", s.SetProjectRate(ctx, p.ProjectID, 0, 0))
	got, err = s.Project(ctx, p.ProjectID)
	ok(t, "Project", err)
	if got.RateLimit != 0 || got.RateBurst != 0 {
		t.Errorf("rate after SetProjectRate(0, 0): %v/s burst %d", got.RateLimit, got.RateBurst)
	}
	wantCode(t, "SetProjectRate of no project", s.SetProjectRate(ctx, "prj_nothing", 1, 1), seald.ENOTFOUND)
}

func testBusinessRoundTrip(t *testing.T, s seald.Store) {
	ctx := t.Context()
	n, err := s.CountBusinesses(ctx)
	ok(t, "CountBusinesses", err)
	if n != 0 {
		t.Fatalf("CountBusinesses on an empty store = %d", n)
	}
	b, p := newBusiness("acme")
	p.Privacy, p.Network, p.Downloadable = seald.PrivacyPrivate, seald.NetworkEOS, false
	sub := newKey(b, nil, base)
	sub.Sealed = "sealed-subscription-secret"
	api := newKey(b, p, base.Add(time.Second))
	ok(t, "CreateBusiness", s.CreateBusiness(ctx, b, p, sub, api))

	got, err := s.Business(ctx, b.BusinessID)
	ok(t, "Business", err)
	equal(t, "Business", got, b)
	got, err = s.BusinessByName(ctx, "acme")
	ok(t, "BusinessByName", err)
	equal(t, "BusinessByName", got, b)
	gp, err := s.Project(ctx, p.ProjectID)
	ok(t, "Project", err)
	equal(t, "Project", gp, p)
	keys, err := s.Keys(ctx, b.BusinessID)
	ok(t, "Keys", err)
	equal(t, "Keys", keys, []*seald.Key{sub, api})
	n, err = s.CountBusinesses(ctx)
	ok(t, "CountBusinesses", err)
	if n != 1 {
		t.Errorf("CountBusinesses = %d, want 1", n)
	}

	// A second business counts, and its project flags come back as stored (true this time).
	b2, p2 := newBusiness("globex")
	p2.Downloadable = true
	ok(t, "CreateBusiness", s.CreateBusiness(ctx, b2, p2))
	gp, err = s.Project(ctx, p2.ProjectID)
	ok(t, "Project", err)
	equal(t, "Project", gp, p2)
	n, err = s.CountBusinesses(ctx)
	ok(t, "CountBusinesses", err)
	if n != 2 {
		t.Errorf("CountBusinesses = %d, want 2", n)
	}
}

func testBusinessNotFound(t *testing.T, s seald.Store) {
	ctx := t.Context()
	tenant(t, s)
	_, err := s.Business(ctx, "biz_nobody")
	wantCode(t, "Business", err, seald.ENOTFOUND)
	// A lookup that finds nothing returns no value beside its error: the service tells "new" from "existing"
	// by the value too (CreateTenant joins a business it got back).
	got, err := s.BusinessByName(ctx, "nobody")
	wantCode(t, "BusinessByName", err, seald.ENOTFOUND)
	if got != nil {
		t.Errorf("BusinessByName of no business returned %+v", got)
	}
	_, err = s.Project(ctx, "prj_nothing")
	wantCode(t, "Project", err, seald.ENOTFOUND)
}

// A business name is unique, so that two operators creating the same tenant at once end with one business.
// The failed call leaves nothing behind: neither its project nor its keys.
func testBusinessDuplicateName(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, p := newBusiness("initech")
	ok(t, "CreateBusiness", s.CreateBusiness(ctx, b, p, newKey(b, nil, base)))
	b2, p2 := newBusiness("initech")
	k2 := newKey(b2, p2, base)
	wantCode(t, "CreateBusiness with a taken name", s.CreateBusiness(ctx, b2, p2, k2), seald.ECONFLICT)
	_, err := s.Project(ctx, p2.ProjectID)
	wantCode(t, "Project of the refused business", err, seald.ENOTFOUND)
	_, err = s.KeyByDigest(ctx, k2.Digest)
	wantCode(t, "key of the refused business", err, seald.ENOTFOUND)
	n, err := s.CountBusinesses(ctx)
	ok(t, "CountBusinesses", err)
	if n != 1 {
		t.Errorf("CountBusinesses = %d, want 1", n)
	}
}

func testBusinessDuplicateID(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, p := tenant(t, s)
	b2, p2 := newBusiness("another name")
	b2.BusinessID = b.BusinessID
	wantCode(t, "CreateBusiness with a taken business id", s.CreateBusiness(ctx, b2, p2), seald.ECONFLICT)
	b3, p3 := newBusiness("a third name")
	p3.ProjectID = p.ProjectID
	wantCode(t, "CreateBusiness with a taken project id", s.CreateBusiness(ctx, b3, p3), seald.ECONFLICT)
	_, err := s.Business(ctx, b3.BusinessID)
	wantCode(t, "Business whose project was refused", err, seald.ENOTFOUND)
}

func testCreateProject(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, p := tenant(t, s)
	p2 := newProject(b)
	p2.Privacy = seald.PrivacyPrivate
	k := newKey(b, p2, base)
	ok(t, "CreateProject", s.CreateProject(ctx, p2, k))
	got, err := s.Project(ctx, p2.ProjectID)
	ok(t, "Project", err)
	equal(t, "Project", got, p2)
	got, err = s.Project(ctx, p.ProjectID)
	ok(t, "first Project", err)
	equal(t, "first Project", got, p)
	gk, err := s.KeyByDigest(ctx, k.Digest)
	ok(t, "KeyByDigest", err)
	equal(t, "key of the new project", gk, k)
}

func testCreateProjectUnknownBusiness(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, _ := newBusiness("ghost")
	p := newProject(b)
	wantCode(t, "CreateProject of an unknown business", s.CreateProject(ctx, p, newKey(b, p, base)), seald.ENOTFOUND)
	_, err := s.Project(ctx, p.ProjectID)
	wantCode(t, "Project", err, seald.ENOTFOUND)
}

func testDuplicateProject(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, p := tenant(t, s)
	p2 := newProject(b)
	p2.ProjectID = p.ProjectID
	k := newKey(b, nil, base)
	wantCode(t, "CreateProject with a taken project id", s.CreateProject(ctx, p2, k), seald.ECONFLICT)
	_, err := s.KeyByDigest(ctx, k.Digest)
	wantCode(t, "key of the refused project", err, seald.ENOTFOUND)
}

// Times are kept to the millisecond and come back in UTC, whatever zone they were given in.
func testTenantTimes(t *testing.T, s seald.Store) {
	ctx := t.Context()
	zone := time.FixedZone("UTC+05:30", 5*3600+1800)
	at := time.Date(2024, 12, 31, 23, 59, 59, 987_654_321, zone)
	want := time.Date(2024, 12, 31, 18, 29, 59, 987_000_000, time.UTC)
	b, p := newBusiness("clock")
	b.DateRegistered, p.CreatedAt = at, at
	expires := at.Add(time.Hour)
	k := newKey(b, nil, at)
	k.ExpiresAt = &expires
	ok(t, "CreateBusiness", s.CreateBusiness(ctx, b, p, k))

	gb, err := s.Business(ctx, b.BusinessID)
	ok(t, "Business", err)
	gp, err := s.Project(ctx, p.ProjectID)
	ok(t, "Project", err)
	gk, err := s.Key(ctx, k.ID)
	ok(t, "Key", err)
	for what, got := range map[string]time.Time{"DateRegistered": gb.DateRegistered, "Project.CreatedAt": gp.CreatedAt,
		"Key.CreatedAt": gk.CreatedAt} {
		if !sameUTC(got, want) {
			t.Errorf("%s = %v (%v), want %v", what, got, got.Location(), want)
		}
	}
	if gk.ExpiresAt == nil || !sameUTC(*gk.ExpiresAt, want.Add(time.Hour)) {
		t.Errorf("Key.ExpiresAt = %v, want %v", gk.ExpiresAt, want.Add(time.Hour))
	}
}

// sameUTC tells whether got is the instant want, in UTC.
func sameUTC(got, want time.Time) bool {
	return got.Equal(want) && got.Location() == time.UTC && got.Nanosecond() == want.Nanosecond()
}
