package seald

import (
	"time"
)

// DefaultCacheTTL is the cache lifetime serve uses unless told otherwise (Service.CacheTTL).
const DefaultCacheTTL = 2 * time.Second
