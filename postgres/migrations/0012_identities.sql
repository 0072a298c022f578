-- Issue 41: a business's domain identity (did:web). keys is the JSON array of its Ed25519 keys, the current
-- first, each private seed sealed with the master key; state is pending, verified or lapsed.
CREATE TABLE identities (
    business_id text PRIMARY KEY REFERENCES businesses (business_id),
    domain      text NOT NULL,
    did         text NOT NULL,
    state       text NOT NULL,
    verified_at timestamptz,
    checked_at  timestamptz,
    reason      text NOT NULL,
    keys        text NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);
-- The daily re-check finds the verified identities checked longest ago.
CREATE INDEX identities_check ON identities (state, checked_at);
