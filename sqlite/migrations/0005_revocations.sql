-- Issue 14: a revocation's signed transaction is saved before it is sent, like a batch's, so that a crash
-- re-sends the same transaction and a stuck one is replaced at its nonce with higher fees. One row per token:
-- a revocation that failed on chain is replaced by the next attempt.
CREATE TABLE revocations (
    network    TEXT NOT NULL,
    token_id   INTEGER NOT NULL,
    reference  TEXT NOT NULL,
    nonce      INTEGER NOT NULL,
    tx_hash    TEXT NOT NULL,
    tx_hashes  TEXT NOT NULL, -- JSON array of every signed attempt
    raw_tx     BLOB NOT NULL,
    attempt    INTEGER NOT NULL,
    state      TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (network, token_id)
) STRICT;
