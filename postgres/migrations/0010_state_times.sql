-- Issue 34: a record's pipeline timeline. When the record reached each state after PENDING (which is
-- created_at), written by the same statement that moves the record into that state;
-- NULL when it has not reached it, or reached it before this migration (those times were never kept).
ALTER TABLE records ADD COLUMN ipfs_stored_at timestamptz;
ALTER TABLE records ADD COLUMN anchor_submitted_at timestamptz;
ALTER TABLE records ADD COLUMN anchored_at timestamptz;
ALTER TABLE records ADD COLUMN email_sent_at timestamptz;
ALTER TABLE records ADD COLUMN completed_at timestamptz;
ALTER TABLE records ADD COLUMN failed_at timestamptz;
-- The console's anchoring latency (sealing to ANCHORED, per day) reads a range of this index per day and
-- nothing else: it holds both times. Partial, so a record gets its entry only once anchored.
CREATE INDEX records_anchored ON records (project_id, anchored_at, created_at) WHERE anchored_at IS NOT NULL;
