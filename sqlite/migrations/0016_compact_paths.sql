-- Issue 45: a Merkle path in its compact form, 32 bytes a node after a first byte of 0x01, rather than 69
-- bytes of JSON a node (internal/sqlstore/path.go). The columns of the STRICT table become BLOB, so the table
-- is made again; the JSON texts already kept come across as their bytes and are read as before.
CREATE TABLE record_paths_compact (
    record_seq      INTEGER PRIMARY KEY REFERENCES records (seq),
    merkle_path     BLOB, -- compact form or JSON text; NULL for none
    disclosure_path BLOB  -- compact form or JSON text; NULL for none
) STRICT;
INSERT INTO record_paths_compact (record_seq, merkle_path, disclosure_path)
    SELECT record_seq, CAST(merkle_path AS BLOB), CAST(disclosure_path AS BLOB) FROM record_paths ORDER BY record_seq;
DROP TABLE record_paths;
ALTER TABLE record_paths_compact RENAME TO record_paths;
