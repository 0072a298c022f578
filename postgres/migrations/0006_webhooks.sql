-- Issue 18: webhooks. A project's endpoints, the record events they asked for, and each delivery of an event
-- to an endpoint, which is a durable job of its own (claimed with a lease, retried with backoff) and is kept
-- afterwards so that its owner can see it and replay it. Events are inserted in the transaction of the record
-- change that causes them.
CREATE TABLE webhooks (
    id          text PRIMARY KEY,
    business_id text NOT NULL REFERENCES businesses (business_id),
    project_id  text NOT NULL REFERENCES projects (project_id),
    url         text NOT NULL,
    events      text NOT NULL, -- JSON array of event types
    secret      text NOT NULL, -- sealed with the master key
    created_at  timestamptz NOT NULL,
    deleted_at  timestamptz     -- NULL while it receives events
);
CREATE INDEX webhooks_project ON webhooks (project_id, deleted_at);

CREATE TABLE webhook_events (
    id         text PRIMARY KEY,
    project_id text NOT NULL,
    type       text NOT NULL,
    reference  text NOT NULL,
    body       bytea NOT NULL, -- the exact bytes every delivery sends
    created_at timestamptz NOT NULL
);

CREATE TABLE webhook_deliveries (
    seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- insertion order, to break ties of created_at
    id              text NOT NULL UNIQUE,
    webhook_id      text NOT NULL REFERENCES webhooks (id),
    event_id        text NOT NULL REFERENCES webhook_events (id),
    state           text NOT NULL,
    attempts        integer NOT NULL,
    run_at          timestamptz NOT NULL,
    leased_until    timestamptz,
    last_attempt_at timestamptz,
    last_status     integer NOT NULL,
    last_error      text NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, run_at);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, seq);
