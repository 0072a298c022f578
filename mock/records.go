package mock

import (
	"context"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// RecordService fakes seald.RecordService with one function field per method; a test sets the ones its handler calls.
type RecordService struct {
	SealFn         func(ctx context.Context, c *seald.Caller, req *seald.SealRequest) (*seald.Record, error)
	GenerateFn     func(ctx context.Context, c *seald.Caller, data []byte) (*seald.Record, error)
	StatusFn       func(ctx context.Context, c *seald.Caller, reference string) (*seald.Record, error)
	ChangeStatusFn func(ctx context.Context, c *seald.Caller, reference, status, reason string) (*seald.Record, *seald.StatusChange, error)
	HistoryFn      func(ctx context.Context, c *seald.Caller, reference string) (*seald.Record, []*seald.StatusChange, error)
	DownloadFn     func(ctx context.Context, c *seald.Caller, reference, password string) ([]byte, error)
	EraseFn        func(ctx context.Context, c *seald.Caller, reference, reason string) (*seald.Record, bool, error)
	DisclosureFn   func(ctx context.Context, c *seald.Caller, reference, password string) (*proof.DisclosurePackage, error)
	ListRecordsFn  func(ctx context.Context, c *seald.Caller, q seald.RecordQuery) (*seald.RecordPage, error)
	RecordStatsFn  func(ctx context.Context, c *seald.Caller, days int) (*seald.RecordStats, error)
}

var _ seald.RecordService = (*RecordService)(nil)

// Seal calls SealFn.
func (s *RecordService) Seal(ctx context.Context, c *seald.Caller, req *seald.SealRequest) (*seald.Record, error) {
	if s.SealFn == nil {
		unset("RecordService", "Seal")
	}
	return s.SealFn(ctx, c, req)
}

// Generate calls GenerateFn.
func (s *RecordService) Generate(ctx context.Context, c *seald.Caller, data []byte) (*seald.Record, error) {
	if s.GenerateFn == nil {
		unset("RecordService", "Generate")
	}
	return s.GenerateFn(ctx, c, data)
}

// Status calls StatusFn.
func (s *RecordService) Status(ctx context.Context, c *seald.Caller, reference string) (*seald.Record, error) {
	if s.StatusFn == nil {
		unset("RecordService", "Status")
	}
	return s.StatusFn(ctx, c, reference)
}

// ChangeStatus calls ChangeStatusFn.
func (s *RecordService) ChangeStatus(ctx context.Context, c *seald.Caller, reference, status, reason string) (*seald.Record, *seald.StatusChange, error) {
	if s.ChangeStatusFn == nil {
		unset("RecordService", "ChangeStatus")
	}
	return s.ChangeStatusFn(ctx, c, reference, status, reason)
}

// History calls HistoryFn.
func (s *RecordService) History(ctx context.Context, c *seald.Caller, reference string) (*seald.Record, []*seald.StatusChange, error) {
	if s.HistoryFn == nil {
		unset("RecordService", "History")
	}
	return s.HistoryFn(ctx, c, reference)
}

// Download calls DownloadFn.
func (s *RecordService) Download(ctx context.Context, c *seald.Caller, reference, password string) ([]byte, error) {
	if s.DownloadFn == nil {
		unset("RecordService", "Download")
	}
	return s.DownloadFn(ctx, c, reference, password)
}

// Erase calls EraseFn.
func (s *RecordService) Erase(ctx context.Context, c *seald.Caller, reference, reason string) (*seald.Record, bool, error) {
	if s.EraseFn == nil {
		unset("RecordService", "Erase")
	}
	return s.EraseFn(ctx, c, reference, reason)
}

// Disclosure calls DisclosureFn.
func (s *RecordService) Disclosure(ctx context.Context, c *seald.Caller, reference, password string) (*proof.DisclosurePackage, error) {
	if s.DisclosureFn == nil {
		unset("RecordService", "Disclosure")
	}
	return s.DisclosureFn(ctx, c, reference, password)
}

// ListRecords calls ListRecordsFn.
func (s *RecordService) ListRecords(ctx context.Context, c *seald.Caller, q seald.RecordQuery) (*seald.RecordPage, error) {
	if s.ListRecordsFn == nil {
		unset("RecordService", "ListRecords")
	}
	return s.ListRecordsFn(ctx, c, q)
}

// RecordStats calls RecordStatsFn.
func (s *RecordService) RecordStats(ctx context.Context, c *seald.Caller, days int) (*seald.RecordStats, error) {
	if s.RecordStatsFn == nil {
		unset("RecordService", "RecordStats")
	}
	return s.RecordStatsFn(ctx, c, days)
}
