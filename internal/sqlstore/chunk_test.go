package sqlstore

import (
	"slices"
	"strings"
	"testing"
)

// A run of rows is cut into power-of-two chunks, largest first, of at most MaxChunk rows.
func TestChunks(t *testing.T) {
	for n, want := range map[int][]int{0: nil, 1: {1}, 2: {2}, 3: {2, 1}, 37: {32, 4, 1}, 64: {64}, 100: {64, 32, 4},
		200: {64, 64, 64, 8}} {
		if got := Chunks(n); !slices.Equal(got, want) {
			t.Errorf("Chunks(%d) = %v, want %v", n, got, want)
		}
	}
}

// Each chunk size has its statement, with as many rows.
func TestChunkTexts(t *testing.T) {
	texts := NewChunkTexts(InsertPayloadRows)
	for size := 1; size <= MaxChunk; size *= 2 {
		if got := strings.Count(texts.Text(size), "(?, ?)"); got != size {
			t.Errorf("the statement of %d payloads has %d rows", size, got)
		}
	}
	if got, want := strings.Count(InsertRecordRows(4), "?"), 4*len(FactInsertColumns); got != want {
		t.Errorf("the statement of 4 records has %d placeholders, want %d", got, want)
	}
	if got, want := strings.Count(InsertStateRows(4), "?"), 4*len(StateInsertColumns); got != want {
		t.Errorf("the statement of 4 records' states has %d placeholders, want %d", got, want)
	}
}
