-- seald's schema on SQLite. Times are INTEGER unix milliseconds (UTC); booleans are INTEGER 0/1; lists and
-- the mail request are JSON text. Tables are STRICT so that a wrongly typed value fails instead of being
-- stored as something else.

CREATE TABLE businesses (
    id              TEXT PRIMARY KEY,
    business_id     TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL UNIQUE,
    description     TEXT NOT NULL,
    logo            TEXT NOT NULL,
    website         TEXT NOT NULL,
    date_registered INTEGER NOT NULL
) STRICT;

CREATE TABLE projects (
    id           TEXT PRIMARY KEY,
    project_id   TEXT NOT NULL UNIQUE,
    business_id  TEXT NOT NULL REFERENCES businesses (business_id),
    name         TEXT NOT NULL,
    description  TEXT NOT NULL,
    logo         TEXT NOT NULL,
    privacy      TEXT NOT NULL,
    network      TEXT NOT NULL,
    downloadable INTEGER NOT NULL,
    created_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX projects_business ON projects (business_id);

CREATE TABLE keys (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    business_id TEXT NOT NULL REFERENCES businesses (business_id),
    project_id  TEXT REFERENCES projects (project_id), -- NULL for subscription keys
    prefix      TEXT NOT NULL,
    digest      TEXT NOT NULL UNIQUE,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER,
    revoked_at  INTEGER,
    sealed      TEXT NOT NULL
) STRICT;
CREATE INDEX keys_business ON keys (business_id, created_at);
CREATE INDEX keys_project ON keys (project_id);

CREATE TABLE batches (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    network        TEXT NOT NULL,
    first_token_id INTEGER NOT NULL,
    count          INTEGER NOT NULL,
    root           TEXT NOT NULL,
    nonce          INTEGER NOT NULL,
    tx_hash        TEXT NOT NULL,
    tx_hashes      TEXT, -- JSON array; NULL for none
    raw_tx         BLOB,
    attempt        INTEGER NOT NULL,
    state          TEXT NOT NULL,
    block_number   INTEGER NOT NULL,
    block_hash     TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
) STRICT;
CREATE INDEX batches_network_state ON batches (network, state);

CREATE TABLE records (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT, -- insertion order, to break ties of created_at
    reference        TEXT NOT NULL UNIQUE,
    pipeline         TEXT NOT NULL,
    business_id      TEXT NOT NULL REFERENCES businesses (business_id),
    project_id       TEXT NOT NULL REFERENCES projects (project_id),
    network          TEXT NOT NULL,
    hash             TEXT NOT NULL,
    mime_type        TEXT NOT NULL,
    privacy          TEXT NOT NULL,
    status           TEXT NOT NULL,
    state            TEXT NOT NULL,
    error_type       TEXT NOT NULL,
    error_message    TEXT NOT NULL,
    cid              TEXT NOT NULL,
    encrypted_file   TEXT NOT NULL,
    token_id         INTEGER, -- NULL until anchored
    batch_id         INTEGER REFERENCES batches (id),
    leaf             TEXT NOT NULL,
    merkle_path      TEXT, -- JSON array; NULL for none
    revoked_on_chain INTEGER NOT NULL,
    is_email         INTEGER NOT NULL,
    is_encrypted     INTEGER NOT NULL,
    is_signed        INTEGER NOT NULL,
    has_password     INTEGER NOT NULL,
    downloadable     INTEGER NOT NULL,
    password_hash    TEXT NOT NULL,
    mail             TEXT, -- JSON object; NULL when no e-mail is sent
    message_id       TEXT NOT NULL,
    ovi              TEXT NOT NULL,
    signature        TEXT NOT NULL,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
) STRICT;
CREATE INDEX records_hash ON records (hash, created_at);
CREATE INDEX records_cid ON records (cid);
CREATE INDEX records_token ON records (network, token_id);
CREATE INDEX records_anchor_queue ON records (state, network, created_at);
CREATE INDEX records_batch ON records (batch_id);

-- The canonical data of a record, kept until the store step has put it into IPFS.
CREATE TABLE payloads (
    reference TEXT PRIMARY KEY REFERENCES records (reference),
    data      BLOB NOT NULL
) STRICT;

CREATE TABLE jobs (
    id           INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused, so a stale job id never names a new job
    kind         TEXT NOT NULL CHECK (kind <> ''),
    reference    TEXT NOT NULL REFERENCES records (reference),
    attempts     INTEGER NOT NULL,
    run_at       INTEGER NOT NULL,
    leased_until INTEGER, -- NULL when unclaimed
    last_error   TEXT NOT NULL
) STRICT;
CREATE INDEX jobs_run_at ON jobs (run_at);
CREATE INDEX jobs_reference ON jobs (reference);

-- The audit trail of status changes: append-only, which the triggers below enforce for any client.
CREATE TABLE status_changes (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    reference   TEXT NOT NULL REFERENCES records (reference),
    from_status TEXT NOT NULL,
    to_status   TEXT NOT NULL,
    actor       TEXT NOT NULL,
    reason      TEXT NOT NULL,
    at          INTEGER NOT NULL
) STRICT;
CREATE INDEX status_changes_reference ON status_changes (reference, id);

CREATE TRIGGER status_changes_no_update BEFORE UPDATE ON status_changes
BEGIN
    SELECT RAISE(ABORT, 'status_changes is append-only');
END;

CREATE TRIGGER status_changes_no_delete BEFORE DELETE ON status_changes
BEGIN
    SELECT RAISE(ABORT, 'status_changes is append-only');
END;
