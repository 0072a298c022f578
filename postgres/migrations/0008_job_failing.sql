-- Issue 29: revocation and erasure jobs never give up, so a metric shows how long the oldest of each kind has
-- been failing: failing_since is when a job's first failed run ended (NULL while it has not failed).
ALTER TABLE jobs ADD COLUMN failing_since timestamptz;
