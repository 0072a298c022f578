-- Issue 18: webhooks. A project's endpoints, the record events they asked for, and each delivery of an event
-- to an endpoint, which is a durable job of its own (claimed with a lease, retried with backoff) and is kept
-- afterwards so that its owner can see it and replay it. Events are inserted in the transaction of the record
-- change that causes them.
CREATE TABLE webhooks (
    id          TEXT PRIMARY KEY,
    business_id TEXT NOT NULL REFERENCES businesses (business_id),
    project_id  TEXT NOT NULL REFERENCES projects (project_id),
    url         TEXT NOT NULL,
    events      TEXT NOT NULL, -- JSON array of event types
    secret      TEXT NOT NULL, -- sealed with the master key
    created_at  INTEGER NOT NULL,
    deleted_at  INTEGER         -- NULL while it receives events
) STRICT;
CREATE INDEX webhooks_project ON webhooks (project_id, deleted_at);

CREATE TABLE webhook_events (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    type       TEXT NOT NULL,
    reference  TEXT NOT NULL,
    body       BLOB NOT NULL, -- the exact bytes every delivery sends
    created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE webhook_deliveries (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT, -- insertion order, to break ties of created_at
    id              TEXT NOT NULL UNIQUE,
    webhook_id      TEXT NOT NULL REFERENCES webhooks (id),
    event_id        TEXT NOT NULL REFERENCES webhook_events (id),
    state           TEXT NOT NULL,
    attempts        INTEGER NOT NULL,
    run_at          INTEGER NOT NULL,
    leased_until    INTEGER,
    last_attempt_at INTEGER,
    last_status     INTEGER NOT NULL,
    last_error      TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, run_at);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, seq);
