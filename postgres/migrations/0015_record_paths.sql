-- Issue 45: a record's Merkle paths (of its leaf and of its disclosure leaf, about a kilobyte of JSON for a
-- batch of 1,024) leave its row for a table of their own, keyed by the record's seq. They are written once,
-- when the record is placed in a batch, and read only to build its proofs, while every step of the pipeline
-- writes a new version of the record's row, paths and all, to the write-ahead log. The paths of the records
-- placed together land side by side, at the end of their B-tree.
CREATE TABLE record_paths (
    record_seq      bigint PRIMARY KEY REFERENCES records (seq),
    merkle_path     text, -- JSON array; NULL for none
    disclosure_path text  -- JSON array; NULL for none
);
INSERT INTO record_paths (record_seq, merkle_path, disclosure_path)
    SELECT seq, merkle_path, disclosure_path FROM records
    WHERE merkle_path IS NOT NULL OR disclosure_path IS NOT NULL ORDER BY seq;
ALTER TABLE records DROP COLUMN merkle_path, DROP COLUMN disclosure_path;
