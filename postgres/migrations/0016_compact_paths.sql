-- Issue 45: a Merkle path in its compact form, 32 bytes a node after a first byte of 0x01, rather than 69
-- bytes of JSON a node (internal/sqlstore/path.go). The columns become bytea; the JSON texts already kept
-- stay as they are, as bytes, and are read as before.
ALTER TABLE record_paths
    ALTER COLUMN merkle_path TYPE bytea USING convert_to(merkle_path, 'UTF8'),
    ALTER COLUMN disclosure_path TYPE bytea USING convert_to(disclosure_path, 'UTF8');
