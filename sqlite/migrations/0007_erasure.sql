-- Issue 19: erasure that keeps proofs valid. A record's data key (wrapped by the master key) is kept here
-- rather than inside the envelope stored on IPFS, so that clearing it makes every copy of the envelope
-- undecryptable; erased_at is when that was done (NULL while the record's data is kept). The audit trail
-- names what each entry did (a status change, or an erasure), and a project may keep stored copies for a
-- limited time (retain_ms, 0: for ever).
ALTER TABLE records ADD COLUMN data_key TEXT NOT NULL DEFAULT '';
ALTER TABLE records ADD COLUMN erased_at INTEGER;
ALTER TABLE status_changes ADD COLUMN action TEXT NOT NULL DEFAULT 'status';
ALTER TABLE projects ADD COLUMN retain_ms INTEGER NOT NULL DEFAULT 0;
CREATE INDEX records_retention ON records (project_id, created_at) WHERE erased_at IS NULL;
