package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// Limits on the e-mail members, so a record cannot carry an unbounded message.
const (
	maxSubject  = 998 // an RFC 5322 line
	maxBody     = 256 << 10
	maxPassword = 1024
)

// hashData canonicalizes a `data` member and returns its canonical bytes and lowercase hex SHA-256.
func (s *Service) hashData(data []byte) ([]byte, string, error) {
	if len(data) == 0 {
		return nil, "", seald.Errorf(seald.EINVALID, "data is required")
	}
	if data[0] != '{' {
		return nil, "", seald.Errorf(seald.EINVALID, "data must be a JSON object")
	}
	canon, err := s.Canonicalize(data)
	if err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, "data") {
			msg = "data: " + msg
		}
		return nil, "", seald.Errorf(seald.EINVALID, "%s", msg)
	}
	sum := sha256.Sum256(canon)
	return canon, hex.EncodeToString(sum[:]), nil
}

// Seal accepts data for authentication: it validates the request, stores the record with its first job in
// one transaction and returns it. From then on the pipeline owns it; nothing accepted is lost. c must be a
// project's caller: nobody, and the operator, are EUNAUTHORIZED.
func (s *Service) Seal(ctx context.Context, c *seald.Caller, req *seald.SealRequest) (*seald.Record, error) {
	if err := projectCaller(c); err != nil {
		return nil, err
	}
	canon, hash, err := s.hashData(req.Data)
	if err != nil {
		return nil, err
	}
	network := req.Network
	if network == "" {
		network = c.Project.Network
	}
	if _, ok := s.Chains[network]; !ok {
		return nil, notEnabled(network)
	}
	to, err := parseAddresses("to", req.To, true)
	if err != nil {
		return nil, err
	}
	cc, err := parseAddresses("cc", req.Cc, false)
	if err != nil {
		return nil, err
	}
	if strings.ContainsAny(req.Subject, "\r\n") {
		return nil, seald.Errorf(seald.EINVALID, "subject must not contain CR or LF")
	}
	if seald.HasControl(req.Subject) {
		// The mailer refuses them in a header; refused here, the caller learns it now, not from a FAILED record.
		return nil, seald.Errorf(seald.EINVALID, "subject must not contain control characters")
	}
	if len(req.Subject) > maxSubject {
		return nil, seald.Errorf(seald.EINVALID, "subject is longer than %d bytes", maxSubject)
	}
	if len(req.Body) > maxBody {
		return nil, seald.Errorf(seald.EINVALID, "body is longer than %d bytes", maxBody)
	}
	subject := req.Subject
	if strings.TrimSpace(subject) == "" {
		subject = seald.DefaultSubject
	}
	body := req.Body
	if strings.TrimSpace(body) == "" {
		body = seald.DefaultBody
	}
	pipeline := seald.PipelinePolygon
	if network == seald.NetworkEOS {
		pipeline = seald.PipelineEOS
	}
	if err := s.admit(ctx, c, network); err != nil {
		return nil, err
	}
	r := s.newRecord(c, seald.PrefixAuthentication, pipeline, network, hash)
	r.IsEmail = true
	r.Mail = &seald.MailRequest{To: to, Cc: cc, Subject: subject, Body: body, HTML: req.IsHTML,
		Business: c.Business.Name, Project: c.Project.Name}
	if req.Password != nil {
		if *req.Password == "" || len(*req.Password) > maxPassword {
			return nil, seald.Errorf(seald.EINVALID, "password must be 1 to %d bytes", maxPassword)
		}
		if r.PasswordHash, err = s.Secrets.HashPassword(ctx, *req.Password); err != nil {
			return nil, err
		}
		r.HasPassword = true
	}
	if req.EncryptedReference {
		if r.OVI, err = s.Secrets.EncryptOVI(r.Reference, hash); err != nil {
			return nil, err
		}
	}
	return s.create(ctx, r, canon)
}

// Generate makes a generator (`ovi`) record: an I- reference, its encrypted_ovi for embedding in a document,
// and the record itself, stored, anchored and verifiable like any other but with no e-mail. c must be a
// project's caller, as for Seal.
func (s *Service) Generate(ctx context.Context, c *seald.Caller, data []byte) (*seald.Record, error) {
	if err := projectCaller(c); err != nil {
		return nil, err
	}
	canon, hash, err := s.hashData(data)
	if err != nil {
		return nil, err
	}
	network := c.Project.Network
	if _, ok := s.Chains[network]; !ok {
		return nil, notEnabled(network)
	}
	if err := s.admit(ctx, c, network); err != nil {
		return nil, err
	}
	r := s.newRecord(c, seald.PrefixGenerator, seald.PipelineOVI, network, hash)
	if r.OVI, err = s.Secrets.EncryptOVI(r.Reference, hash); err != nil {
		return nil, err
	}
	return s.create(ctx, r, canon)
}

// newRecord is a new ACTIVE, PENDING record of the caller's project, created now.
func (s *Service) newRecord(c *seald.Caller, prefix, pipeline, network, hash string) *seald.Record {
	now := s.now()
	return &seald.Record{
		Reference:    seald.NewReference(prefix),
		Pipeline:     pipeline,
		BusinessID:   c.Business.BusinessID,
		ProjectID:    c.Project.ProjectID,
		Network:      network,
		Hash:         hash,
		MimeType:     "application/json",
		Privacy:      c.Project.Privacy,
		Status:       seald.StatusActive,
		State:        seald.StatePending,
		IsEncrypted:  true,
		Downloadable: c.Project.Downloadable,
		CreatedAt:    now,
		UpdatedAt:    now,
	}
}

// create stores the record, its payload and its first job (the store step) in one transaction, then wakes
// the pipeline. The payload is the envelope the store step puts into IPFS, sealed here: no plaintext is
// written to the database, where deleted rows linger in free pages, the WAL and every backup.
func (s *Service) create(ctx context.Context, r *seald.Record, canon []byte) (*seald.Record, error) {
	env, key, err := s.Secrets.SealDetached(r.Reference, canon)
	if err != nil {
		return nil, err
	}
	r.DataKey = key
	secret, err := s.Secrets.DisclosureSecret(r.Reference, key)
	if err != nil {
		return nil, err
	}
	commitment, err := proof.SDCommitment(canon, secret)
	if err != nil {
		return nil, ownData("create", err)
	}
	blind := disclosureBlind(secret)
	r.Disclosure, r.DisclosureBlind = hex.EncodeToString(commitment[:]), hex.EncodeToString(blind[:])
	if err := s.Store.CreateRecord(ctx, r, env, &seald.Job{Kind: seald.JobStore, Reference: r.Reference, RunAt: r.CreatedAt}); err != nil {
		return nil, err
	}
	s.crashPoint(seald.CrashAfterRecordSave)
	s.wake()
	return r, nil
}

// notEnabled refuses a network this service does not anchor on, naming the setting that turns it on, so
// the caller can tell its operator what is missing.
func notEnabled(network string) error {
	if network == seald.NetworkEOS {
		return seald.Errorf(seald.EINVALID, "blockchain EOS is not enabled on this service: its operator has not set --eos-chain (SEALD_EOS_CHAIN), the EOS EVM endpoint")
	}
	return seald.Errorf(seald.EINVALID, "blockchain %s is not enabled on this service", network)
}
