-- Issue 45: a record's Merkle paths (of its leaf and of its disclosure leaf, about a kilobyte of JSON for a
-- batch of 1,024) leave its row for a table of their own, keyed by the record's seq. They are written once,
-- when the record is placed in a batch, and read only to build its proofs, while every step of the pipeline
-- rewrites the record's row: with them a row took half a page (1.2 rows per 4 KiB leaf), so each step wrote
-- a page per record to the write-ahead log; without them three rows share a page, and a step's group writes
-- a page for three. The paths of the records placed together land side by side, at the end of their B-tree.
-- DROP COLUMN rewrites the records table: every instance stops for this migration (docs/operations.md).
CREATE TABLE record_paths (
    record_seq      INTEGER PRIMARY KEY REFERENCES records (seq),
    merkle_path     TEXT, -- JSON array; NULL for none
    disclosure_path TEXT  -- JSON array; NULL for none
) STRICT;
INSERT INTO record_paths (record_seq, merkle_path, disclosure_path)
    SELECT seq, merkle_path, disclosure_path FROM records
    WHERE merkle_path IS NOT NULL OR disclosure_path IS NOT NULL ORDER BY seq;
ALTER TABLE records DROP COLUMN merkle_path;
ALTER TABLE records DROP COLUMN disclosure_path;
