package httpapi

import (
	"strconv"
	"strings"
	"time"

	"seald"
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

// verificationResult is the seed's verification result, member for member. Proof is beyond the seed and
// present only with ?proof=1.
type verificationResult struct {
	Owner              owner        `json:"owner"`
	IsDataDownloadable bool         `json:"is_data_downloadable"`
	Blockchain         blockchain   `json:"blockchain"`
	IPFS               ipfsInfo     `json:"ipfs"`
	Privacy            string       `json:"privacy"`
	Details            details      `json:"details"`
	Status             string       `json:"status"`
	Misc               misc         `json:"misc"`
	Proof              *seald.Proof `json:"proof,omitempty"`
}

type owner struct {
	Business   business `json:"business"`
	ProjectID  string   `json:"project_id"`
	Project    project  `json:"project"`
	BusinessID string   `json:"business_id"`
}

type business struct {
	ID             string `json:"id"`
	BusinessID     string `json:"business_id"`
	Name           string `json:"name"`
	Description    string `json:"description"`
	Logo           string `json:"logo"`
	Website        string `json:"website"`
	DateRegistered string `json:"date_registered"`
}

type project struct {
	ID          string `json:"id"`
	ProjectID   string `json:"project_id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Logo        string `json:"logo"`
	Privacy     string `json:"privacy"`
	BusinessID  string `json:"business_id"`
}

type blockchain struct {
	TokenID           string `json:"token_id"`
	BlockchainNetwork string `json:"blockchain_network"`
	// RevokedOnChain is beyond the seed: whether the revocation has been recorded on the chain too.
	RevokedOnChain bool `json:"revoked_on_chain"`
}

type ipfsInfo struct {
	IPFSGatewayLink string `json:"ipfs_gateway_link"`
	CID             string `json:"cid"`
}

type details struct {
	Reference     string `json:"reference"`
	Pipeline      string `json:"pipeline"`
	CreatedTime   string `json:"created_time"`
	UpdatedTime   string `json:"updated_time"`
	Mimetype      string `json:"mimetype"`
	EncryptedFile string `json:"encrypted_file"`
	Hash          string `json:"hash"`
}

type misc struct {
	IsEmail     bool `json:"is_email"`
	IsEncrypted bool `json:"is_encrypted"`
	IsSigned    bool `json:"is_signed"`
	HasPassword bool `json:"has_password"`
}

func (s *Server) gatewayLink(cid string) string {
	if cid == "" {
		return ""
	}
	return strings.TrimRight(s.GatewayURL, "/") + "/ipfs/" + cid
}

func (s *Server) verificationResult(v *seald.Verification) *verificationResult {
	r, b, p := v.Record, v.Business, v.Project
	return &verificationResult{
		Owner: owner{
			Business: business{ID: b.ID, BusinessID: b.BusinessID, Name: b.Name, Description: b.Description,
				Logo: b.Logo, Website: b.Website, DateRegistered: formatTime(b.DateRegistered)},
			ProjectID: p.ProjectID,
			Project: project{ID: p.ID, ProjectID: p.ProjectID, Name: p.Name, Description: p.Description,
				Logo: p.Logo, Privacy: string(p.Privacy), BusinessID: p.BusinessID},
			BusinessID: b.BusinessID,
		},
		IsDataDownloadable: r.Downloadable,
		Blockchain:         blockchain{TokenID: tokenID(r), BlockchainNetwork: r.Network, RevokedOnChain: r.RevokedOnChain},
		IPFS:               ipfsInfo{IPFSGatewayLink: s.gatewayLink(r.CID), CID: r.CID},
		Privacy:            string(r.Privacy),
		Details: details{Reference: r.Reference, Pipeline: r.Pipeline, CreatedTime: formatTime(r.CreatedAt),
			UpdatedTime: formatTime(r.UpdatedAt), Mimetype: r.MimeType, EncryptedFile: r.EncryptedFile, Hash: r.Hash},
		Status: string(r.Status),
		Misc:   misc{IsEmail: r.IsEmail, IsEncrypted: r.IsEncrypted, IsSigned: r.IsSigned, HasPassword: r.HasPassword},
	}
}

// statusRecordResult is the seed's authentication status record, member for member.
type statusRecordResult struct {
	ErrorMessage      *string `json:"error_message"`
	ErrorType         string  `json:"error_type"`
	IsEmail           bool    `json:"is_email"`
	IsEncrypted       bool    `json:"is_encrypted"`
	IsSigned          bool    `json:"is_signed"`
	HasPassword       bool    `json:"has_password"`
	CreatedTime       string  `json:"created_time"`
	UpdatedTime       string  `json:"updated_time"`
	BlockchainNetwork string  `json:"blockchain_network"`
	Reference         string  `json:"reference"`
	Pipeline          string  `json:"pipeline"`
	TokenID           string  `json:"token_id"`
	ProjectID         string  `json:"project_id"`
	BusinessID        string  `json:"business_id"`
	Mimetype          string  `json:"mimetype"`
	State             string  `json:"state"`
	EncryptedFile     string  `json:"encrypted_file"`
	Hash              string  `json:"hash"`
	CID               string  `json:"cid"`
	// Status is beyond the seed: the record's ACTIVE / SUSPENDED / REVOKED standing.
	Status string `json:"status"`
}

func statusRecord(r *seald.Record) *statusRecordResult {
	var msg *string
	if r.ErrorMessage != "" {
		m := r.ErrorMessage
		msg = &m
	}
	return &statusRecordResult{
		ErrorMessage: msg, ErrorType: r.ErrorType, IsEmail: r.IsEmail, IsEncrypted: r.IsEncrypted,
		IsSigned: r.IsSigned, HasPassword: r.HasPassword, CreatedTime: formatTime(r.CreatedAt),
		UpdatedTime: formatTime(r.UpdatedAt), BlockchainNetwork: r.Network, Reference: r.Reference,
		Pipeline: r.Pipeline, TokenID: tokenID(r), ProjectID: r.ProjectID, BusinessID: r.BusinessID,
		Mimetype: r.MimeType, State: string(r.State), EncryptedFile: r.EncryptedFile, Hash: r.Hash, CID: r.CID,
		Status: string(r.Status),
	}
}
