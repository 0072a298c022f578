// Package pipeline runs what happens to a record after the Service accepted it: durable jobs kept in the
// store (put the sealed copy into IPFS, anchor batches of hashes on chain with one leader per network, send
// the e-mail, sign, revoke, erase) and the webhook deliveries of record events. Workers claim jobs with a
// lease, retry failures with backoff (RetryPolicy), and save each step's effect in the transaction that
// deletes its job, so that a crash at any point resumes at the step that was running. It holds no business
// rule: those are the Service's (package seald).
package pipeline
