-- Issue 14: token ids unique by construction, not only because one leader hands them out. A batch that failed
-- for good (FAILED) keeps its row for the record but gives its token range back, so only live batches are
-- unique by first token id.
DROP INDEX records_token;
CREATE UNIQUE INDEX records_token ON records (network, token_id) WHERE token_id IS NOT NULL;
CREATE UNIQUE INDEX batches_first_token ON batches (network, first_token_id) WHERE state <> 'FAILED';

-- The anchor leader's epoch per lock name: taking the lock bumps it, and CreateBatch writes only while the
-- epoch it was given is still the latest, so a leader that lost its lock without knowing cannot add a batch.
CREATE TABLE leaders (
    name  TEXT PRIMARY KEY,
    epoch INTEGER NOT NULL
) STRICT;
