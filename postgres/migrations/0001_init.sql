-- seald's schema on PostgreSQL. Times are timestamptz kept to the millisecond; lists and the mail request
-- are JSON text, stored exactly as written. Tables are created in the first schema of the search_path.

CREATE TABLE businesses (
    id              text PRIMARY KEY,
    business_id     text NOT NULL UNIQUE,
    name            text NOT NULL UNIQUE,
    description     text NOT NULL,
    logo            text NOT NULL,
    website         text NOT NULL,
    date_registered timestamptz NOT NULL
);

CREATE TABLE projects (
    id           text PRIMARY KEY,
    project_id   text NOT NULL UNIQUE,
    business_id  text NOT NULL REFERENCES businesses (business_id),
    name         text NOT NULL,
    description  text NOT NULL,
    logo         text NOT NULL,
    privacy      text NOT NULL,
    network      text NOT NULL,
    downloadable boolean NOT NULL,
    created_at   timestamptz NOT NULL
);
CREATE INDEX projects_business ON projects (business_id);

CREATE TABLE keys (
    id          text PRIMARY KEY,
    kind        text NOT NULL,
    business_id text NOT NULL REFERENCES businesses (business_id),
    project_id  text REFERENCES projects (project_id), -- NULL for subscription keys
    prefix      text NOT NULL,
    digest      text NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz,
    revoked_at  timestamptz,
    sealed      text NOT NULL
);
CREATE INDEX keys_business ON keys (business_id, created_at);
CREATE INDEX keys_project ON keys (project_id);

CREATE TABLE batches (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    network        text NOT NULL,
    first_token_id bigint NOT NULL,
    count          integer NOT NULL,
    root           text NOT NULL,
    nonce          bigint NOT NULL,
    tx_hash        text NOT NULL,
    tx_hashes      text, -- JSON array; NULL for none
    raw_tx         bytea,
    attempt        integer NOT NULL,
    state          text NOT NULL,
    block_number   bigint NOT NULL,
    block_hash     text NOT NULL,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL
);
CREATE INDEX batches_network_state ON batches (network, state);

CREATE TABLE records (
    seq              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- insertion order, to break ties of created_at
    reference        text NOT NULL UNIQUE,
    pipeline         text NOT NULL,
    business_id      text NOT NULL REFERENCES businesses (business_id),
    project_id       text NOT NULL REFERENCES projects (project_id),
    network          text NOT NULL,
    hash             text NOT NULL,
    mime_type        text NOT NULL,
    privacy          text NOT NULL,
    status           text NOT NULL,
    state            text NOT NULL,
    error_type       text NOT NULL,
    error_message    text NOT NULL,
    cid              text NOT NULL,
    encrypted_file   text NOT NULL,
    token_id         bigint, -- NULL until anchored
    batch_id         bigint REFERENCES batches (id),
    leaf             text NOT NULL,
    merkle_path      text, -- JSON array; NULL for none
    revoked_on_chain boolean NOT NULL,
    is_email         boolean NOT NULL,
    is_encrypted     boolean NOT NULL,
    is_signed        boolean NOT NULL,
    has_password     boolean NOT NULL,
    downloadable     boolean NOT NULL,
    password_hash    text NOT NULL,
    mail             text, -- JSON object; NULL when no e-mail is sent
    message_id       text NOT NULL,
    ovi              text NOT NULL,
    signature        text NOT NULL,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL
);
CREATE INDEX records_hash ON records (hash, created_at);
CREATE INDEX records_cid ON records (cid);
CREATE INDEX records_token ON records (network, token_id);
CREATE INDEX records_anchor_queue ON records (state, network, created_at);
CREATE INDEX records_batch ON records (batch_id);

-- The canonical data of a record, kept until the store step has put it into IPFS.
CREATE TABLE payloads (
    reference text PRIMARY KEY REFERENCES records (reference),
    data      bytea NOT NULL
);

CREATE TABLE jobs (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- never reused
    kind         text NOT NULL CHECK (kind <> ''),
    reference    text NOT NULL REFERENCES records (reference),
    attempts     integer NOT NULL,
    run_at       timestamptz NOT NULL,
    leased_until timestamptz, -- NULL when unclaimed
    last_error   text NOT NULL
);
CREATE INDEX jobs_run_at ON jobs (run_at);
CREATE INDEX jobs_reference ON jobs (reference);

-- The audit trail of status changes: append-only, which the triggers below enforce for any client.
CREATE TABLE status_changes (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    reference   text NOT NULL REFERENCES records (reference),
    from_status text NOT NULL,
    to_status   text NOT NULL,
    actor       text NOT NULL,
    reason      text NOT NULL,
    at          timestamptz NOT NULL
);
CREATE INDEX status_changes_reference ON status_changes (reference, id);

CREATE FUNCTION status_changes_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'status_changes is append-only: % refused', TG_OP USING ERRCODE = 'restrict_violation';
END
$$;

-- A statement trigger refuses every UPDATE, DELETE and TRUNCATE, even one that would match no row.
CREATE TRIGGER status_changes_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON status_changes
    FOR EACH STATEMENT EXECUTE FUNCTION status_changes_append_only();
