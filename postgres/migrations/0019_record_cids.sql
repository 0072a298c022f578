-- Issue 45: a record's CID is found through a table of its own instead of an index of record_states. An
-- update that changes an indexed column writes a new entry in every index of the table, and each step after
-- the store step changes one (the state, the token, the anchoring time), so record_states_cid got a new entry
-- of the same CID, about 110 bytes of WAL, at every step: four or five per record for a value written once.
-- record_cids gets one row per record and CID, when the CID is set, and nothing at the steps after.
--
-- Triggers keep it, so that whatever writes a CID (the store step's update, an insert that carries one, a bulk
-- load by COPY) keeps it too. A row is added and never removed: a record whose CID changed (none does today)
-- keeps a row of its old CID, and the lookup (sqlstore's RecordByCID) checks the CID of record_states itself,
-- so an old row finds nothing. No foreign key: its check would lock the record_facts row, a WAL record more.
CREATE TABLE record_cids (
    cid        text NOT NULL,
    record_seq bigint NOT NULL,
    PRIMARY KEY (cid, record_seq)
);
INSERT INTO record_cids (cid, record_seq) SELECT cid, seq FROM record_states WHERE cid <> '' ORDER BY cid, seq;

CREATE FUNCTION record_cids_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- The update of a record_states row holds the row's lock, so no other transaction adds this pair meanwhile.
    INSERT INTO record_cids (cid, record_seq) SELECT NEW.cid, NEW.seq
        WHERE NOT EXISTS (SELECT 1 FROM record_cids WHERE cid = NEW.cid AND record_seq = NEW.seq);
    RETURN NULL;
END
$$;
CREATE TRIGGER record_cids_insert AFTER INSERT ON record_states
    FOR EACH ROW WHEN (NEW.cid <> '') EXECUTE FUNCTION record_cids_keep();
CREATE TRIGGER record_cids_update AFTER UPDATE OF cid ON record_states
    FOR EACH ROW WHEN (NEW.cid <> '' AND NEW.cid IS DISTINCT FROM OLD.cid) EXECUTE FUNCTION record_cids_keep();

DROP INDEX record_states_cid;
