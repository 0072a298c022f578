package seald

import (
	"time"
)

// A project's own API keys, for its caller (the console): listed, issued, rotated and revoked only within
// the caller's project, and only by a caller whose keys are not in a rotation overlap (service/keyauthority.go).
// Subscription keys belong to the business and stay with the operator (IssueKey, RotateKey, RevokeKey take
// any key).

// MaxKeyOverlap bounds how long a rotated key keeps working beside its successor.
const MaxKeyOverlap = 30 * 24 * time.Hour
