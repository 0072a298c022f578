-- Issue 45: a record's row in two. Every step of the pipeline wrote a new version of a record's whole row,
-- about 950 bytes once filled in, to change a few of its columns, and none of those updates was HOT (each
-- changed a column some index holds), so each version also got a new entry in all ten indexes of records.
-- record_facts now keeps what is written once, at acceptance (an erasure clears some of it), and
-- record_states, one narrow row per record keyed by its seq, what the steps change: a step writes a version of
-- that row and new entries only in that table's indexes, and none in those of record_facts. record_states
-- keeps copies of the record's network, project and creation time, which never change, because its indexes
-- need them beside the columns that move. The view records joins the two into the row records was, under its
-- name, for what reads a whole record (and for an operator's own queries, which read as before).
--
-- records is renamed record_facts and stays, with its seq, its constraints and its index names, the parent of
-- every table that names a record (a foreign key follows its table, not its name). Every row is carried
-- across with its seq, so a record in the middle of the pipeline goes on where it was. The indexes of the
-- columns that leave are dropped by name before the columns, and the columns without CASCADE, so that anything
-- else depending on them fails the migration instead of going with them. erased_at stays in record_facts too,
-- with the retention sweep's index (records_retention), which then changes only at acceptance and erasure.
-- Dropping batch_id drops its foreign key to batches; record_states has its own. DROP COLUMN rewrites
-- nothing: the rows already there keep the bytes of the dropped columns until they are written again (never,
-- for most) or the table is rewritten (VACUUM FULL); new rows are narrow.
ALTER TABLE records RENAME TO record_facts;

-- The layout of record_states is for its updates. A step writes a new version of the row, and PostgreSQL logs
-- only the bytes between the longest prefix and the longest suffix the two versions share, when the new one is
-- on the old one's page. So the columns come in the order the steps fill them (what the store step sets, then
-- the placement's, the receipt's, the completion's) with what every step changes (state, updated_at) last: a
-- step after the store step logs little more than what it sets. And the pages keep room for that: a row grows
-- from about 110 bytes at acceptance to about 650 once completed, and a page filled to 15% at insert holds
-- its rows once grown (about 12), so the steps' versions stay on their page instead of each moving to another
-- (whole, with a lock record besides). The rows carried across below are whole already, so the table is filled
-- first and gets its fillfactor after, for the rows to come. Measured in docs/bench.md.
CREATE TABLE record_states (
    seq                 bigint PRIMARY KEY REFERENCES record_facts (seq),
    network             text NOT NULL,        -- the record's, copied for the indexes
    project_id          text NOT NULL,        -- the record's, copied for the indexes
    created_at          timestamptz NOT NULL, -- the record's, copied for the indexes
    status              text NOT NULL,
    revoked_on_chain    boolean NOT NULL,
    error_type          text NOT NULL,
    error_message       text NOT NULL,
    erased_at           timestamptz,
    failed_at           timestamptz,
    cid                 text NOT NULL,        -- the store step's
    encrypted_file      text NOT NULL,
    disclosure          text,
    disclosure_blind    text,
    ipfs_stored_at      timestamptz,
    token_id            bigint,               -- the placement's; NULL until then
    batch_id            bigint REFERENCES batches (id),
    leaf                text NOT NULL,
    anchor_submitted_at timestamptz,
    anchored_at         timestamptz,          -- the receipt's
    is_signed           boolean NOT NULL,     -- the e-mail's and the completion's
    signature           text NOT NULL,
    message_id          text NOT NULL,
    email_sent_at       timestamptz,
    completed_at        timestamptz,
    state               text NOT NULL,        -- every step's
    updated_at          timestamptz NOT NULL
);
INSERT INTO record_states (seq, network, project_id, created_at, status, state, error_type, error_message, cid,
        encrypted_file, token_id, batch_id, leaf, revoked_on_chain, is_signed, signature, message_id, updated_at,
        erased_at, ipfs_stored_at, anchor_submitted_at, anchored_at, email_sent_at, completed_at, failed_at,
        disclosure, disclosure_blind)
    SELECT seq, network, project_id, created_at, status, state, error_type, error_message, cid, encrypted_file,
        token_id, batch_id, leaf, revoked_on_chain, is_signed, signature, message_id, updated_at, erased_at,
        ipfs_stored_at, anchor_submitted_at, anchored_at, email_sent_at, completed_at, failed_at, disclosure,
        disclosure_blind
    FROM record_facts ORDER BY seq;
ALTER TABLE record_states SET (fillfactor = 15);

DROP INDEX records_cid, records_anchor_queue, records_batch, records_token, records_anchored;
ALTER TABLE record_facts
    DROP COLUMN status,
    DROP COLUMN state,
    DROP COLUMN error_type,
    DROP COLUMN error_message,
    DROP COLUMN cid,
    DROP COLUMN encrypted_file,
    DROP COLUMN token_id,
    DROP COLUMN batch_id,
    DROP COLUMN leaf,
    DROP COLUMN revoked_on_chain,
    DROP COLUMN is_signed,
    DROP COLUMN signature,
    DROP COLUMN message_id,
    DROP COLUMN updated_at,
    DROP COLUMN ipfs_stored_at,
    DROP COLUMN anchor_submitted_at,
    DROP COLUMN anchored_at,
    DROP COLUMN email_sent_at,
    DROP COLUMN completed_at,
    DROP COLUMN failed_at,
    DROP COLUMN disclosure,
    DROP COLUMN disclosure_blind;

-- The indexes of the columns that moved, on the same columns and rows as they were on records, but for
-- batch_id's: a batch's records are a range of its network's token ids (record_states_token), which the
-- statements that find them name beside the batch's id, so placing a record writes no entry for its batch.
CREATE INDEX record_states_cid ON record_states (cid);
CREATE INDEX record_states_anchor_queue ON record_states (state, network, created_at);
CREATE UNIQUE INDEX record_states_token ON record_states (network, token_id) WHERE token_id IS NOT NULL;
CREATE INDEX record_states_anchored ON record_states (project_id, anchored_at, created_at) WHERE anchored_at IS NOT NULL;

CREATE VIEW records AS
    SELECT r.seq, r.reference, r.pipeline, r.business_id, r.project_id, r.network, r.hash, r.mime_type, r.privacy,
        r.is_email, r.is_encrypted, r.has_password, r.downloadable, r.password_hash, r.mail, r.ovi, r.created_at,
        r.data_key, s.status, s.state, s.error_type, s.error_message, s.cid, s.encrypted_file, s.token_id,
        s.batch_id, s.leaf, s.revoked_on_chain, s.is_signed, s.signature, s.message_id, s.updated_at, s.erased_at,
        s.ipfs_stored_at, s.anchor_submitted_at, s.anchored_at, s.email_sent_at, s.completed_at, s.failed_at,
        s.disclosure, s.disclosure_blind
    FROM record_facts r JOIN record_states s ON s.seq = r.seq;
