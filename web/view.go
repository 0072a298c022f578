package web

import (
	"strconv"
	"strings"
	"time"

	"seald.dev/seald"
)

// recordView is everything the record template shows, already worded; the template only lays it out and
// html/template escapes every value.
type recordView struct {
	Title   string
	Link    string // the page's own verification link
	QRPNG   string
	QRSVG   string
	Private bool

	Status   string // ACTIVE, SUSPENDED, REVOKED
	Class    string // CSS class of the status banner
	Headline string // the verdict in plain words
	Explain  string

	Reference   string
	SealedAt    string // for people
	SealedAtISO string // for <time datetime>
	Hash        string

	BusinessName string
	Website      string // shown as text
	WebsiteURL   string // set only when Website is an http(s) URL
	Logo         string // set only when an http(s) URL
	ProjectName  string
	ProjectLogo  string

	Network        string
	ChainName      string // the chain in words; says so for a development chain
	Development    bool
	ChainID        string
	BlockNumber    uint64
	ProofLink      string // the public proof bundle, once anchored
	TrustURL       string // the issuer's trust root
	RevokeTx       string
	RevokeTxLink   string
	RevokedAt      string
	Contract       string
	ContractLink   string
	TokenID        string // empty until anchored
	TokenLink      string
	TxHash         string
	TxLink         string
	RevokedOnChain bool

	CID         string // empty until stored
	GatewayLink string
}

// errorView is a page without a record.
type errorView struct {
	Title   string
	Message string
}

// verdicts are the plain words and colour class of each status.
var verdicts = map[seald.Status]struct{ class, headline, explain string }{
	seald.StatusActive: {"active", "Genuine: this record is active",
		"This record was sealed by seald and its owner still stands by it."},
	seald.StatusSuspended: {"suspended", "Suspended: do not rely on this record for now",
		"This record was sealed, but its owner has put it on hold. It may become active again, or be revoked."},
	seald.StatusRevoked: {"revoked", "Revoked: this record is no longer valid",
		"This record was sealed, but its owner has withdrawn it for good. Do not rely on it."},
}

func (p *Page) view(id string, r *seald.PublicRecord) recordView {
	link := p.Service.VerificationLink(id)
	v := recordView{Link: link, QRPNG: "/v/" + id + "/qr.png", QRSVG: "/v/" + id + "/qr.svg",
		Private: r.Private, Status: string(r.Status)}
	verdict, ok := verdicts[r.Status]
	if !ok {
		verdict.class, verdict.headline = "unknown", "Status "+string(r.Status)
	}
	v.Class, v.Headline, v.Explain = verdict.class, verdict.headline, verdict.explain
	if r.Private {
		v.Title = "Private sealed record: " + string(r.Status)
		return v
	}
	v.Title = verdict.headline
	v.Reference, v.Hash, v.Network, v.CID = r.Reference, r.Hash, r.Network, r.CID
	if !r.CreatedAt.IsZero() {
		t := r.CreatedAt.UTC()
		v.SealedAt = t.Format("2 January 2006, 15:04:05 UTC")
		v.SealedAtISO = t.Format(time.RFC3339)
	}
	if b := r.Business; b != nil {
		v.BusinessName, v.Website, v.WebsiteURL, v.Logo = b.Name, b.Website, httpURL(b.Website), httpURL(b.Logo)
	}
	if pr := r.Project; pr != nil {
		v.ProjectName, v.ProjectLogo = pr.Name, httpURL(pr.Logo)
	}
	ch := r.Chain
	v.ChainID, v.Contract, v.RevokedOnChain = ch.ChainID, ch.Contract, r.RevokedOnChain
	v.ChainName, v.Development = ch.Name(), ch.Development
	if r.RevokeTx != "" {
		v.RevokeTx = r.RevokeTx
		v.RevokedAt = r.RevokedAt.UTC().Format("2 January 2006, 15:04:05 UTC")
	}
	explorer := httpURL(ch.Explorer)
	explorer = strings.TrimRight(explorer, "/")
	if explorer != "" && ch.Contract != "" {
		v.ContractLink = explorer + "/address/" + ch.Contract
	}
	if r.TokenID != 0 {
		v.TokenID = strconv.FormatUint(r.TokenID, 10)
		v.TxHash, v.BlockNumber = r.TxHash, r.BlockNumber
		v.ProofLink = "/v/" + id + "/proof.json"
		v.TrustURL = p.Service.TrustRootURL()
		if explorer != "" && v.RevokeTx != "" {
			v.RevokeTxLink = explorer + "/tx/" + v.RevokeTx
		}
		if explorer != "" {
			v.TokenLink = explorer + "/token/" + ch.Contract + "?a=" + v.TokenID
			if r.TxHash != "" {
				v.TxLink = explorer + "/tx/" + r.TxHash
			}
		}
	}
	if r.CID != "" {
		v.GatewayLink = strings.TrimRight(p.GatewayURL, "/") + "/ipfs/" + r.CID
	}
	return v
}
