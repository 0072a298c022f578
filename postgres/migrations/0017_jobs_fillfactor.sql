-- Issue 45: a claim sets only a job's lease, a column no index holds, so PostgreSQL can write the leased
-- version as a HOT update, beside the old one and with no new index entry, when the page has room. Jobs were
-- appended to full pages, so each claim moved its job to another page and gave it a new entry in all three
-- of the table's indexes. Half of each page is now kept free for that. The table is a queue (a job is
-- deleted once done), so the space kept costs nothing once it drains.
ALTER TABLE jobs SET (fillfactor = 50);
