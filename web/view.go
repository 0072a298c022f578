package web

import (
	"strconv"
	"strings"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/proof"
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
	// IssuerLine is who sealed it as its proofs say (issue 41): "Sealed by Acme University, acme.example,
	// domain verified on 2026-11-29" or "Sealed by Acme (self-declared name; no verified domain)".
	IssuerLine     string
	IssuerVerified bool
	IssuerDomain   string // the verified domain
	IssuerDID      string
	Website        string // shown as text
	WebsiteURL     string // set only when Website is an http(s) URL
	Logo           string // set only when an http(s) URL
	ProjectName    string
	ProjectLogo    string

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
	RevokeReason   string // the owner's reason for the revocation
	Contract       string
	ContractLink   string
	TokenID        string // empty until anchored
	TokenLink      string
	PublicRPC      string // the chain node the in-browser proof check asks by default (serve --public-rpc)
	AnchoredAt     string // the anchoring block's time, for people; empty when unknown
	AnchoredAtISO  string
	TxHash         string
	TxLink         string
	RevokedOnChain bool

	CID         string // empty until stored
	GatewayLink string // empty once erased: the gateway answers 410 for the CID

	// What the proof shows and what it does not, in plain words (issue 32): filled for a PUBLIC record.
	Issuer     string // the issuer's origin: the trust root's issuer, the service's public URL
	Anchored   string // "This exact data existed no later than ..." once anchored
	Revocation string // whether the issuer has withdrawn it
	Checked    []string

	Erased      bool // the record's data was erased; its hash and anchor remain
	ErasedAt    string
	ErasedAtISO string
}

// errorView is a page without a record.
type errorView struct {
	Title   string
	Message string
}

// verdicts are the plain words and colour class of each status.
var verdicts = map[seald.Status]struct{ class, headline, explain string }{
	seald.StatusActive: {"active", "Genuine: this record is active",
		"This record was sealed through this service, and its owner has not withdrawn it."},
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
	v.Issuer = strings.TrimSuffix(p.Service.TrustRootURL(), "/.well-known/seald-trust.json")
	if r.Private {
		v.Title = "Private sealed record: " + string(r.Status)
		if r.Development && r.Status == seald.StatusActive {
			// No "Genuine" on a development chain, private or not (issue 32).
			v.Class, v.Headline = "development", developmentHeadline
			v.Explain = "This service runs on a development chain of its own. The record exists, active; but whoever " +
				"runs the service can rewrite its own chain, so this proves nothing to anyone else. Do not treat the " +
				"document as verified."
		}
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
	if iss := r.Issuer; iss != nil {
		v.IssuerLine = proof.DescribeIssuer(iss)
		if iss.Status == proof.IssuerDomainVerified {
			v.IssuerVerified, v.IssuerDomain, v.IssuerDID = true, proof.Domain(iss.DID), iss.DID
		}
	}
	if pr := r.Project; pr != nil {
		v.ProjectName, v.ProjectLogo = pr.Name, httpURL(pr.Logo)
	}
	ch := r.Chain
	v.ChainID, v.Contract, v.RevokedOnChain = ch.ChainID, ch.Contract, r.RevokedOnChain
	v.ChainName, v.Development = ch.Name(), ch.Development
	v.RevokeReason = r.RevokeReason
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
		v.PublicRPC = httpURL(ch.PublicRPC)
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
	p.explainProof(&v, r)
	if !r.ErasedAt.IsZero() {
		t := r.ErasedAt.UTC()
		v.Erased, v.ErasedAt, v.ErasedAtISO = true, t.Format("2 January 2006, 15:04:05 UTC"), t.Format(time.RFC3339)
	}
	if r.CID != "" && !v.Erased {
		v.GatewayLink = strings.TrimRight(p.GatewayURL, "/") + "/ipfs/" + r.CID
	}
	return v
}

// developmentHeadline replaces "Genuine" on a development chain: the service's own chain can be rewritten by
// whoever runs it, so an anchor there is evidence for nobody else, and the page must not read as if it were.
const developmentHeadline = "Development record: checked here only, not proven"

// explainProof words what the record's proof shows and what it does not: the anchor (data, block, chain,
// issuer), the issuer's revocation, and on a development chain why none of it proves anything to others.
func (p *Page) explainProof(v *recordView, r *seald.PublicRecord) {
	if v.TokenID != "" {
		v.Anchored = "This exact data (the fingerprint above) existed no later than the time of block " +
			strconv.FormatUint(v.BlockNumber, 10) + " on " + v.ChainName + ", where the issuer at " + v.Issuer +
			" anchored it."
	}
	switch {
	case r.Status == seald.StatusRevoked && r.RevokedOnChain:
		v.Revocation = "The issuer has revoked it, and the revocation is recorded on the chain."
	case r.Status == seald.StatusRevoked:
		v.Revocation = "The issuer has revoked it; the revocation is being recorded on the chain."
	case r.Status == seald.StatusSuspended:
		v.Revocation = "The issuer has suspended it. A suspension is kept by this service only, not on the chain."
	case r.Status == seald.StatusActive && v.TokenID != "":
		v.Revocation = "The issuer has not revoked it: the chain holds no revocation, and this service lists it as active."
	case r.Status == seald.StatusActive:
		v.Revocation = "The issuer has not revoked it."
	}
	if !v.Development {
		return
	}
	if r.Status == seald.StatusActive {
		v.Class, v.Headline = "development", developmentHeadline
		v.Title = developmentHeadline
		v.Explain = "This service runs on a development chain of its own. It found the record, active, with its " +
			"fingerprint anchored on that chain; but whoever runs the service can rewrite its own chain, so this " +
			"proves nothing to anyone else. Do not treat the document as verified."
	}
	v.Checked = []string{
		"The record exists in this service under this link, with the status shown.",
		"Its fingerprint is anchored on " + v.ChainName + ", a chain that runs on the service's own machine.",
		"A chain only its operator writes to is no independent witness: it proves nothing to anyone else.",
	}
}

// setAnchoredAt shows the time of the anchor's block, and words the anchor with it.
func (v *recordView) setAnchoredAt(at time.Time) {
	at = at.UTC()
	v.AnchoredAt, v.AnchoredAtISO = at.Format("2 January 2006, 15:04:05 UTC"), at.Format(time.RFC3339)
	if v.Anchored != "" {
		v.Anchored = "This exact data (the fingerprint above) existed no later than " + v.AnchoredAt + ", the time of block " +
			strconv.FormatUint(v.BlockNumber, 10) + " on " + v.ChainName + ", where the issuer at " + v.Issuer + " anchored it."
	}
}
