-- Issue 45: keys that append. A record's payload is keyed by the record's seq (its rowid, given in
-- insertion order) and its jobs are found by it, instead of by its random reference: a sealed record's
-- payload row and job index entry then land on the last page of their B-trees, which a group commit writes
-- once for all its records, rather than each on a random page of its own. The reference and hash lookups of
-- records keep their indexes. The rows are carried across, so a record in the middle of the pipeline goes
-- on where it was.
CREATE TABLE payloads_by_seq (
    seq  INTEGER PRIMARY KEY REFERENCES records (seq),
    data BLOB NOT NULL
) STRICT;
INSERT INTO payloads_by_seq (seq, data)
    SELECT records.seq, payloads.data FROM payloads JOIN records ON records.reference = payloads.reference
    ORDER BY records.seq;
DROP TABLE payloads;
ALTER TABLE payloads_by_seq RENAME TO payloads;

-- jobs.reference stays, for what reads a job, but no longer indexed nor checked: record_seq is the key to
-- the record. A job whose reference names no record (none can: it was a foreign key) fails the NOT NULL
-- rather than being dropped.
CREATE TABLE jobs_by_seq (
    id            INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused, so a stale job id never names a new job
    kind          TEXT NOT NULL CHECK (kind <> ''),
    reference     TEXT NOT NULL,
    record_seq    INTEGER NOT NULL REFERENCES records (seq),
    attempts      INTEGER NOT NULL,
    run_at        INTEGER NOT NULL,
    leased_until  INTEGER, -- NULL when unclaimed
    last_error    TEXT NOT NULL,
    failing_since INTEGER
) STRICT;
INSERT INTO jobs_by_seq (id, kind, reference, record_seq, attempts, run_at, leased_until, last_error, failing_since)
    SELECT id, kind, reference, (SELECT seq FROM records WHERE records.reference = jobs.reference), attempts, run_at,
        leased_until, last_error, failing_since
    FROM jobs ORDER BY id;
-- The ids already given stay given: the new table goes on from the old one's last id, not from its largest
-- remaining one.
DELETE FROM sqlite_sequence WHERE name = 'jobs_by_seq';
INSERT INTO sqlite_sequence (name, seq) SELECT 'jobs_by_seq', seq FROM sqlite_sequence WHERE name = 'jobs';
DROP TABLE jobs;
ALTER TABLE jobs_by_seq RENAME TO jobs;
CREATE INDEX jobs_kind_run_at ON jobs (kind, run_at);
CREATE INDEX jobs_record ON jobs (record_seq);
