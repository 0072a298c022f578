// Package ttlcache holds the two small caches the domain uses to spare the store: Map, entries that each
// expire at a time given with them, checked against a clock the caller passes (so that tests move time
// instead of sleeping); and Value, one value read again at most once an interval, by one caller while the
// others go on with the previous one.
//
// Both are written by hand rather than taken from an expiring-LRU library (hashicorp/golang-lru/v2/expirable,
// jellydator/ttlcache): those read time.Now themselves and run a janitor goroutine, which would make an expiry
// bound untestable without sleeping. What is cached, and for how long, is the domain's decision.
package ttlcache
