package web

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/service"
)

var tags = regexp.MustCompile(`(?s)<[^>]*>`)

func pageText(t *testing.T, body []byte) string {
	t.Helper()
	s := tags.ReplaceAllString(string(body), " ")
	return strings.Join(strings.Fields(html.UnescapeString(s)), " ")
}

func renderRecord(t *testing.T, p *Page, rec *seald.PublicRecord) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := recordPage.ExecuteTemplate(&buf, "layout", p.view("D-x", rec)); err != nil {
		t.Fatal(err)
	}
	return buf.String(), pageText(t, buf.Bytes())
}

// TestWordsPerState: each state of a record says in plain words what its proof shows and what it does not
// (issue 32): the anchor's block, chain and issuer, whether the issuer revoked it, that the names are
// self-declared; no "Genuine" on a development chain; the erased state; and a not-found page without a check
// mark or a footer about links it does not have.
func TestWordsPerState(t *testing.T) {
	p := &Page{Service: &service.Service{PublicURL: "https://verify.example.test/"}, GatewayURL: "https://gw.example"}
	polygon := seald.Chain{Network: "POLYGON", ChainID: "137", Contract: "0xC0"}
	dev := seald.Chain{Network: "POLYGON", ChainID: "1337", Contract: "0xC0", Development: true}
	anchored := func(ch seald.Chain, st seald.Status) *seald.PublicRecord {
		return &seald.PublicRecord{Status: st, Reference: "D-x", Hash: "ab12", CID: "bafyx", Network: "POLYGON",
			Chain: ch, TokenID: 42, TxHash: "0xt", BlockNumber: 1234, CreatedAt: time.Date(2026, 11, 21, 8, 32, 0, 0, time.UTC),
			Business: &seald.Business{Name: "Default business"}, Project: &seald.Project{Name: "Invoices"}}
	}
	selfDeclared := "These names, the logo and the website are the business's own words, given when it signed up: self-declared, not checked by seald or anyone else."
	anchor := "This exact data (the fingerprint above) existed no later than the time of block 1234 on Polygon PoS (chain 137), where the issuer at https://verify.example.test anchored it."
	notProven := "It does not prove who the business is, that what the data says is true, or anything about data that differs from it by one character."

	revokedOnChain := anchored(polygon, seald.StatusRevoked)
	revokedOnChain.RevokedOnChain = true
	notAnchored := anchored(polygon, seald.StatusActive)
	notAnchored.TokenID, notAnchored.TxHash, notAnchored.BlockNumber = 0, "", 0
	erased := anchored(polygon, seald.StatusActive)
	erased.ErasedAt = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

	for _, c := range []struct {
		name      string
		rec       *seald.PublicRecord
		want, not []string
	}{
		{"active", anchored(polygon, seald.StatusActive), []string{"Genuine: this record is active", "What this proves", anchor,
			"The issuer has not revoked it: the chain holds no revocation, and this service lists it as active.", notProven, selfDeclared,
			"This page is answered by the seald service at https://verify.example.test, which sealed the record. The proof file and the chain details above let you check the anchor without trusting this page.",
			"(encrypted; only its owner can read it)"},
			[]string{"Development", "erased", "What was checked"}},
		{"not anchored", notAnchored, []string{"Not anchored yet: until the fingerprint is written to the chain (within minutes of sealing), only this service, at https://verify.example.test, vouches for the record.",
			"The issuer has not revoked it.", "Once the record is anchored, this page offers its proof file"}, []string{"existed no later than"}},
		{"suspended", anchored(polygon, seald.StatusSuspended), []string{"Suspended: do not rely on this record for now", anchor,
			"The issuer has suspended it. A suspension is kept by this service only, not on the chain."}, []string{"Genuine"}},
		{"revoked, being recorded", anchored(polygon, seald.StatusRevoked), []string{"Revoked: this record is no longer valid",
			"The issuer has revoked it; the revocation is being recorded on the chain."}, []string{"Genuine", "has not revoked"}},
		{"revoked on chain", revokedOnChain, []string{"The issuer has revoked it, and the revocation is recorded on the chain."}, []string{"Genuine"}},
		{"development", anchored(dev, seald.StatusActive), []string{developmentHeadline, "What was checked",
			"but whoever runs the service can rewrite its own chain, so this proves nothing to anyone else. Do not treat the document as verified.",
			"The record exists in this service under this link, with the status shown.",
			"A chain only its operator writes to is no independent witness: it proves nothing to anyone else.", selfDeclared,
			"which sealed the record on a development chain of its own: nothing on it is evidence for anyone else."},
			[]string{"Genuine", "What this proves", "existed no later than"}},
		{"development, revoked", anchored(dev, seald.StatusRevoked), []string{"Revoked: this record is no longer valid", "What was checked"}, []string{"Genuine"}},
		{"erased", erased, []string{"Genuine: this record is active", "The data was erased",
			"were deleted on 22 November 2026, 09:00:00 UTC", "Stored copy (IPFS) Erased: bafyx is no longer served",
			"if you hold the data, you can still check that it is exactly what was sealed"},
			[]string{"(encrypted; only its owner can read it)"}},
		{"private", &seald.PublicRecord{Private: true, Status: seald.StatusActive}, []string{"A private sealed record exists",
			"Its owner keeps the details private"}, []string{"What this proves", "self-declared", "erased"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			page, text := renderRecord(t, p, c.rec)
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("page lacks %q\n%s", w, text)
				}
			}
			for _, w := range c.not {
				if strings.Contains(text, w) {
					t.Errorf("page says %q\n%s", w, text)
				}
			}
			if c.name == "erased" && strings.Contains(page, "gw.example") {
				t.Error("an erased record's page links the gateway, which answers 410 for its CID")
			}
		})
	}

	t.Run("not found", func(t *testing.T) {
		var buf bytes.Buffer
		if err := notFoundPage.ExecuteTemplate(&buf, "layout", errorView{Title: "No sealed record found"}); err != nil {
			t.Fatal(err)
		}
		text := pageText(t, buf.Bytes())
		for _, bad := range []string{"✓", "<img", "links on this page", "the service that sealed the record"} {
			if strings.Contains(buf.String(), bad) {
				t.Errorf("not-found page has %q", bad)
			}
		}
		if !strings.Contains(text, "which holds no record under this link") || !strings.Contains(text, "Do not treat the document as verified.") {
			t.Errorf("not-found page text:\n%s", text)
		}
	})
}
