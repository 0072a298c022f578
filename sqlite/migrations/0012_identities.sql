-- Issue 41: a business's domain identity (did:web). keys is the JSON array of its Ed25519 keys, the current
-- first, each private seed sealed with the master key; state is pending, verified or lapsed.
CREATE TABLE identities (
    business_id TEXT PRIMARY KEY REFERENCES businesses (business_id),
    domain      TEXT NOT NULL,
    did         TEXT NOT NULL,
    state       TEXT NOT NULL,
    verified_at INTEGER,
    checked_at  INTEGER,
    reason      TEXT NOT NULL,
    keys        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;
-- The daily re-check finds the verified identities checked longest ago.
CREATE INDEX identities_check ON identities (state, checked_at);
