-- A project's own request rate per API key (issue 15): 0 takes the server's --rate-limit / --rate-burst.
ALTER TABLE projects ADD COLUMN rate_limit REAL NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN rate_burst INTEGER NOT NULL DEFAULT 0;
