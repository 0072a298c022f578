package sqlstore

import (
	"math/bits"
	"strings"
	"sync"
)

// The group commits insert a group's records, payloads and jobs with multi-row INSERTs. A statement whose
// text changed with the group's size would be parsed (and planned) again for every group, and could not be
// kept prepared without keeping one per size; so a run of rows is cut into chunks of power-of-two sizes, at
// most MaxChunk rows each: a few fixed texts per table, each prepared once and reused by every group.

// MaxChunk is the most rows of one chunk, 1<<maxChunkLog.
const (
	maxChunkLog = 6
	MaxChunk    = 1 << maxChunkLog
)

// Chunks splits n rows into power-of-two sizes of at most MaxChunk, largest first (37: 32, 4, 1).
func Chunks(n int) []int {
	var out []int
	for size := MaxChunk; n > 0; size /= 2 {
		for n >= size {
			out = append(out, size)
			n -= size
		}
	}
	return out
}

// ChunkTexts holds the text of a multi-row statement for each chunk size, made once.
type ChunkTexts struct {
	once  sync.Once
	texts [maxChunkLog + 1]string // by log2 of the size
	make  func(n int) string
}

// NewChunkTexts returns the texts that make gives for each chunk size.
func NewChunkTexts(make func(n int) string) *ChunkTexts { return &ChunkTexts{make: make} }

// Text is the statement of n rows; n is a chunk size (a power of two, at most MaxChunk).
func (c *ChunkTexts) Text(n int) string {
	c.once.Do(func() {
		for i := range c.texts {
			c.texts[i] = c.make(1 << i)
		}
	})
	return c.texts[bits.Len(uint(n))-1]
}

// InsertRecordRows is the INSERT of n records' record_facts rows (AppendFactValues each, one after the other) that
// skips those whose reference exists and returns the references inserted, each with its seq.
func InsertRecordRows(n int) string {
	row := "(?" + strings.Repeat(", ?", len(FactInsertColumns)-1) + ")"
	return valuesText(`INSERT INTO record_facts (`+strings.Join(FactInsertColumns, ", ")+`) VALUES `, row, n,
		` ON CONFLICT (reference) DO NOTHING RETURNING reference, seq`)
}

// InsertStateRows is the INSERT of n records' record_states rows (AppendStateValues each, one after the other).
func InsertStateRows(n int) string {
	row := "(?" + strings.Repeat(", ?", len(StateInsertColumns)-1) + ")"
	return valuesText(`INSERT INTO record_states (`+strings.Join(StateInsertColumns, ", ")+`) VALUES `, row, n, ``)
}

// InsertPayloadRows is the INSERT of n payloads, each its record's seq and its data.
func InsertPayloadRows(n int) string {
	return valuesText(`INSERT INTO payloads (seq, data) VALUES `, `(?, ?)`, n, ``)
}

// valuesText is begin, n rows of row, then end.
func valuesText(begin, row string, n int, end string) string {
	var q strings.Builder
	q.Grow(len(begin) + n*(len(row)+2) + len(end))
	q.WriteString(begin)
	for i := range n {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString(row)
	}
	q.WriteString(end)
	return q.String()
}
