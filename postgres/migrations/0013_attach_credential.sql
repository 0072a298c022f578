-- Issue 42: a project may attach each record's W3C VC 2.0 credential to its notification e-mail (off by
-- default). The credential a record's e-mail carries is kept, sealed with the master key, before the e-mail
-- leaves, so that a notify step run again after a crash sends the same credential, not a newly signed one;
-- an erasure deletes it with the rest of the record's data.
ALTER TABLE projects ADD COLUMN attach_credential boolean NOT NULL DEFAULT false;
CREATE TABLE mail_credentials (
    reference  text PRIMARY KEY REFERENCES records (reference),
    credential text NOT NULL
);
