-- Jobs are claimed kind by kind, in the caller's priority order (later stages first), earliest run_at first
-- within a kind: this index serves each kind's claim as one range scan in claim order (the rowid, which is
-- the job id, breaks ties). It replaces the index on run_at alone, which no query uses any more.
CREATE INDEX jobs_kind_run_at ON jobs (kind, run_at);
DROP INDEX jobs_run_at;
