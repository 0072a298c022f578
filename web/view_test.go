package web

import (
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/service"
)

// TestExplorerLinks: with an explorer the token, transaction and contract are polygonscan-style links;
// without one they are shown as text only.
func TestExplorerLinks(t *testing.T) {
	p := &Page{Service: &service.Service{PublicURL: "https://v.example/"}, GatewayURL: "https://gw.example/"}
	rec := &seald.PublicRecord{Status: seald.StatusActive, Reference: "D-x", Hash: "ab", CID: "bafyx", Network: "POLYGON",
		Chain:   seald.Chain{Network: "POLYGON", ChainID: "80002", Contract: "0xC0", Explorer: "https://amoy.polygonscan.com/"},
		TokenID: 42, TxHash: "0xt", CreatedAt: time.Date(2026, 11, 21, 8, 32, 0, 0, time.UTC),
		Business: &seald.Business{Name: "B", Website: "example.com", Logo: "data:image/png;base64,xx"}, Project: &seald.Project{Name: "P"}}
	v := p.view("D-x", rec)
	for i, c := range [][2]string{
		{v.TokenLink, "https://amoy.polygonscan.com/token/0xC0?a=42"},
		{v.TxLink, "https://amoy.polygonscan.com/tx/0xt"},
		{v.ContractLink, "https://amoy.polygonscan.com/address/0xC0"},
		{v.GatewayLink, "https://gw.example/ipfs/bafyx"},
		{v.Link, "https://v.example/v/D-x"},
		{v.SealedAt, "21 November 2026, 08:32:00 UTC"},
		{v.Headline, "Genuine: this record is active"},
		{v.WebsiteURL, ""}, // not an absolute http(s) URL: text only
		{v.Logo, ""},       // data: URLs are not shown
		{v.Website, "example.com"},
	} {
		if c[0] != c[1] {
			t.Errorf("%d: got %q, want %q", i, c[0], c[1])
		}
	}
	rec.Chain.Explorer = ""
	v = p.view("D-x", rec)
	if v.TokenLink != "" || v.TxLink != "" || v.ContractLink != "" || v.TokenID != "42" || v.TxHash != "0xt" {
		t.Errorf("without explorer: %+v", v)
	}
	rec.Chain.Explorer = "javascript:alert(1)"
	if v = p.view("D-x", rec); v.TokenLink != "" {
		t.Errorf("non-http explorer linked: %q", v.TokenLink)
	}
}

func TestHTTPURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://a.example/logo.png": "https://a.example/logo.png", "HTTP://A.example": "HTTP://A.example",
		"javascript:alert(1)": "", "//evil.example/x": "", "https://": "", "https://a.example/\"x": "",
		" https://a.example ": "https://a.example", "/relative": "", "data:image/png;base64,AA": "",
	} {
		if got := httpURL(in); got != want {
			t.Errorf("httpURL(%q) = %q, want %q", in, got, want)
		}
	}
}
