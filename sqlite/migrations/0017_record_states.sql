-- Issue 45: a record's row in two. Every step of the pipeline rewrote the whole of a record's row, about 950
-- bytes once filled in, to change a few of its columns, and on PostgreSQL none of those updates could be HOT
-- (each changed a column some index holds), so each also gave the record a new entry in all ten indexes of
-- records. record_facts now keeps what is written once, at acceptance (an erasure clears some of it), and
-- record_states, one narrow row per record keyed by its seq, what the steps change: a step rewrites that row
-- and touches only that table's indexes. record_states keeps copies of the record's network, project and
-- creation time, which never change, because its indexes need them beside the columns that move. The view
-- records joins the two into the row records was, under its name, for what reads a whole record (and for
-- an operator's own queries, which read as before).
--
-- record_facts is the parent of every table that names a record: the RENAME first makes their foreign keys
-- name it. SQLite cannot drop a column that a foreign key holds (batch_id), so record_facts is then made again
-- by the procedure of https://www.sqlite.org/lang_altertable.html (#otheralter): the migration runner turns
-- foreign keys off around the migrations, which the DROP TABLE and the RENAME below need, and checks every key
-- before it commits (migrate.go). The new table takes the name last, so the tables that name record_facts keep
-- naming it. Every row is carried across with its seq, so a record in the middle of the pipeline goes on where
-- it was. The migration copies the records table once, during which the instance does not serve: stop every
-- instance, then start the new version.
ALTER TABLE records RENAME TO record_facts;

CREATE TABLE record_states (
    seq                 INTEGER PRIMARY KEY REFERENCES record_facts (seq),
    network             TEXT NOT NULL,    -- the record's, copied for the indexes
    project_id          TEXT NOT NULL,    -- the record's, copied for the indexes
    created_at          INTEGER NOT NULL, -- the record's, copied for the indexes
    status              TEXT NOT NULL,
    state               TEXT NOT NULL,
    error_type          TEXT NOT NULL,
    error_message       TEXT NOT NULL,
    cid                 TEXT NOT NULL,
    encrypted_file      TEXT NOT NULL,
    token_id            INTEGER, -- NULL until anchored
    batch_id            INTEGER REFERENCES batches (id),
    leaf                TEXT NOT NULL,
    revoked_on_chain    INTEGER NOT NULL,
    is_signed           INTEGER NOT NULL,
    signature           TEXT NOT NULL,
    message_id          TEXT NOT NULL,
    updated_at          INTEGER NOT NULL,
    erased_at           INTEGER,
    ipfs_stored_at      INTEGER,
    anchor_submitted_at INTEGER,
    anchored_at         INTEGER,
    email_sent_at       INTEGER,
    completed_at        INTEGER,
    failed_at           INTEGER,
    disclosure          TEXT,
    disclosure_blind    TEXT
) STRICT;
INSERT INTO record_states (seq, network, project_id, created_at, status, state, error_type, error_message, cid,
        encrypted_file, token_id, batch_id, leaf, revoked_on_chain, is_signed, signature, message_id, updated_at,
        erased_at, ipfs_stored_at, anchor_submitted_at, anchored_at, email_sent_at, completed_at, failed_at,
        disclosure, disclosure_blind)
    SELECT seq, network, project_id, created_at, status, state, error_type, error_message, cid, encrypted_file,
        token_id, batch_id, leaf, revoked_on_chain, is_signed, signature, message_id, updated_at, erased_at,
        ipfs_stored_at, anchor_submitted_at, anchored_at, email_sent_at, completed_at, failed_at, disclosure,
        disclosure_blind
    FROM record_facts ORDER BY seq;

CREATE TABLE record_facts_new (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT, -- insertion order, to break ties of created_at
    reference     TEXT NOT NULL UNIQUE,
    pipeline      TEXT NOT NULL,
    business_id   TEXT NOT NULL REFERENCES businesses (business_id),
    project_id    TEXT NOT NULL REFERENCES projects (project_id),
    network       TEXT NOT NULL,
    hash          TEXT NOT NULL,
    mime_type     TEXT NOT NULL,
    privacy       TEXT NOT NULL,
    is_email      INTEGER NOT NULL,
    is_encrypted  INTEGER NOT NULL,
    has_password  INTEGER NOT NULL,
    downloadable  INTEGER NOT NULL,
    password_hash TEXT NOT NULL,
    mail          TEXT, -- JSON object; NULL when no e-mail is sent
    ovi           TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    data_key      TEXT NOT NULL DEFAULT '',
    erased_at     INTEGER -- also in record_states; kept here for records_retention, which no step then changes
) STRICT;
INSERT INTO record_facts_new (seq, reference, pipeline, business_id, project_id, network, hash, mime_type, privacy,
        is_email, is_encrypted, has_password, downloadable, password_hash, mail, ovi, created_at, data_key, erased_at)
    SELECT seq, reference, pipeline, business_id, project_id, network, hash, mime_type, privacy, is_email,
        is_encrypted, has_password, downloadable, password_hash, mail, ovi, created_at, data_key, erased_at
    FROM record_facts ORDER BY seq;
-- The seqs already given stay given: the new table goes on from the old one's last seq (which the first RENAME
-- carried to the name record_facts), not from its largest one. Dropping record_facts drops its sequence; the
-- RENAME carries the new table's to that name.
DELETE FROM sqlite_sequence WHERE name = 'record_facts_new';
INSERT INTO sqlite_sequence (name, seq) SELECT 'record_facts_new', seq FROM sqlite_sequence WHERE name = 'record_facts';
DROP TABLE record_facts;
ALTER TABLE record_facts_new RENAME TO record_facts;
-- Of the records indexes, those of the columns that stay, under their names: the reference's (the UNIQUE
-- above), the hash lookup's, the console's listing of a project and the retention sweep's.
CREATE INDEX records_hash ON record_facts (hash, created_at);
CREATE INDEX records_project ON record_facts (project_id, created_at, seq);
CREATE INDEX records_retention ON record_facts (project_id, created_at) WHERE erased_at IS NULL;

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
