-- Issue 35: selective disclosure. disclosure is the hex SHA-256 commitment to the record's SD payload (NULL
-- for records sealed before it), disclosure_blind the blinding node paired with the record's content leaf in
-- its batch's Merkle tree, disclosure_path the JSON array of the Merkle path of the disclosure leaf once
-- anchored.
ALTER TABLE records ADD COLUMN disclosure TEXT;
ALTER TABLE records ADD COLUMN disclosure_blind TEXT;
ALTER TABLE records ADD COLUMN disclosure_path TEXT;
