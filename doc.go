// Package seald is the domain of the seald service: the types it keeps (businesses, projects, keys, records,
// batches, jobs), its errors, the interfaces that the technology packages implement (Store, BlobStore,
// Anchorer, Mailer), and the one Service that holds every business rule. It imports no adapter.
package seald
