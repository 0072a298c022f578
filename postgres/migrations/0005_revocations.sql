-- Issue 14: a revocation's signed transaction is saved before it is sent, like a batch's, so that a crash
-- re-sends the same transaction and a stuck one is replaced at its nonce with higher fees. One row per token:
-- a revocation that failed on chain is replaced by the next attempt.
CREATE TABLE revocations (
    network    text NOT NULL,
    token_id   bigint NOT NULL,
    reference  text NOT NULL,
    nonce      bigint NOT NULL,
    tx_hash    text NOT NULL,
    tx_hashes  text NOT NULL, -- JSON array of every signed attempt
    raw_tx     bytea NOT NULL,
    attempt    integer NOT NULL,
    state      text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (network, token_id)
);
