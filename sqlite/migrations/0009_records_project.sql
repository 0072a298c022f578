-- Issue 34: the console lists a project's records newest first, a page at a time from a cursor (keyset
-- pagination); this index answers it without sorting or reading other projects' records.
CREATE INDEX records_project ON records (project_id, created_at, seq);
