-- Issue 45: keys that append. A record's payload is keyed by the record's seq (given in insertion order)
-- and its jobs are found by it, instead of by its random reference: a sealed record's payload key and job
-- index entry then land on the rightmost page of their B-trees, which a group commit writes once for all
-- its records, rather than each on a random page of its own. The reference and hash lookups of records keep
-- their indexes. The rows are carried across, so a record in the middle of the pipeline goes on where it
-- was.
CREATE TABLE payloads_by_seq (
    seq  bigint PRIMARY KEY REFERENCES records (seq),
    data bytea NOT NULL
);
INSERT INTO payloads_by_seq (seq, data)
    SELECT records.seq, payloads.data FROM payloads JOIN records ON records.reference = payloads.reference
    ORDER BY records.seq;
DROP TABLE payloads;
ALTER TABLE payloads_by_seq RENAME TO payloads;
ALTER TABLE payloads RENAME CONSTRAINT payloads_by_seq_pkey TO payloads_pkey;
ALTER TABLE payloads RENAME CONSTRAINT payloads_by_seq_seq_fkey TO payloads_seq_fkey;

-- jobs.reference stays, for what reads a job, but no longer indexed nor checked: record_seq is the key to
-- the record. A job whose reference names no record (none can: it was a foreign key) fails the NOT NULL
-- rather than being dropped.
ALTER TABLE jobs ADD COLUMN record_seq bigint;
UPDATE jobs SET record_seq = records.seq FROM records WHERE records.reference = jobs.reference;
ALTER TABLE jobs ALTER COLUMN record_seq SET NOT NULL;
ALTER TABLE jobs ADD CONSTRAINT jobs_record_seq_fkey FOREIGN KEY (record_seq) REFERENCES records (seq);
ALTER TABLE jobs DROP CONSTRAINT jobs_reference_fkey;
DROP INDEX jobs_reference;
CREATE INDEX jobs_record ON jobs (record_seq);
