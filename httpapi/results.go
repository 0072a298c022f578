package httpapi

import (
	"strconv"
	"strings"
	"time"

	"seald.dev/seald/wire"

	"seald.dev/seald"
)

// The seed's datetime format (API.md): RFC 3339 in UTC with milliseconds.
const timeFormat = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeFormat)
}

func tokenID(r *seald.Record) string {
	if r.TokenID == 0 {
		return ""
	}
	return strconv.FormatUint(r.TokenID, 10)
}

func (s *Server) gatewayLink(cid string) string {
	if cid == "" {
		return ""
	}
	return strings.TrimRight(s.GatewayURL, "/") + "/ipfs/" + cid
}

// verificationResult is the seed's verification result; its proof is present only with ?proof=1.
func (s *Server) verificationResult(v *seald.Verification) *wire.Verification {
	r, b, p := v.Record, v.Business, v.Project
	return &wire.Verification{
		Owner: wire.Owner{
			Business: wire.Business{ID: b.ID, BusinessID: b.BusinessID, Name: b.Name, Description: b.Description,
				Logo: b.Logo, Website: b.Website, DateRegistered: formatTime(b.DateRegistered)},
			ProjectID: p.ProjectID,
			Project: wire.Project{ID: p.ID, ProjectID: p.ProjectID, Name: p.Name, Description: p.Description,
				Logo: p.Logo, Privacy: string(p.Privacy), BusinessID: p.BusinessID},
			BusinessID: b.BusinessID,
		},
		IsDataDownloadable: r.Downloadable,
		Blockchain: wire.Blockchain{TokenID: tokenID(r), BlockchainNetwork: r.Network, RevokedOnChain: r.RevokedOnChain,
			ChainName: s.chainName(r.Network)},
		IPFS:    wire.IPFS{IPFSGatewayLink: s.gatewayLink(r.CID), CID: r.CID},
		Privacy: string(r.Privacy),
		Details: wire.Details{Reference: r.Reference, Pipeline: r.Pipeline, CreatedTime: formatTime(r.CreatedAt),
			UpdatedTime: formatTime(r.UpdatedAt), Mimetype: r.MimeType, EncryptedFile: r.EncryptedFile, Hash: r.Hash},
		Status:          string(r.Status),
		Misc:            wire.Misc{IsEmail: r.IsEmail, IsEncrypted: r.IsEncrypted, IsSigned: r.IsSigned, HasPassword: r.HasPassword},
		RecordsWithHash: v.SameHash,
		ErasedTime:      erasedTime(r),
	}
}

// statusRecord is the seed's authentication status record.
func statusRecord(r *seald.Record) *wire.StatusRecord {
	var msg *string
	if r.ErrorMessage != "" {
		m := r.ErrorMessage
		msg = &m
	}
	return &wire.StatusRecord{
		ErrorMessage: msg, ErrorType: r.ErrorType, IsEmail: r.IsEmail, IsEncrypted: r.IsEncrypted,
		IsSigned: r.IsSigned, HasPassword: r.HasPassword, CreatedTime: formatTime(r.CreatedAt),
		UpdatedTime: formatTime(r.UpdatedAt), BlockchainNetwork: r.Network, Reference: r.Reference,
		Pipeline: r.Pipeline, TokenID: tokenID(r), ProjectID: r.ProjectID, BusinessID: r.BusinessID,
		Mimetype: r.MimeType, State: string(r.State), EncryptedFile: r.EncryptedFile, Hash: r.Hash, CID: r.CID,
		Status: string(r.Status), ErasedTime: erasedTime(r),
	}
}

// erasedTime is when the record's data was erased; "" while it is kept.
func erasedTime(r *seald.Record) string {
	if !r.Erased() {
		return ""
	}
	return formatTime(r.ErasedAt)
}

// chainName names a network's chain in words; "" when this service does not anchor on it.
func (s *Server) chainName(network string) string {
	if ch, ok := s.Service.Chain(network); ok {
		return ch.Name()
	}
	return ""
}
