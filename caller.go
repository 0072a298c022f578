package seald

// Caller is the party a Service method acts for: a project of a business, authenticated by its two keys
// (Service.Authenticate), or the operator (Operator). Authority is explicit and fails closed: a nil *Caller
// is nobody, and every method that changes state for someone, or shows a record's owner-only details, takes
// a caller and refuses nil with EUNAUTHORIZED rather than guessing who it might be. The operator's actions
// (CreateTenant, IssueKey, RotateKey, RevokeKey, SetProjectRate, EnsureDefaultTenant) take the operator's
// caller and refuse any other. Only the read-only verifications (Service.Verify and the public page) take
// nil, as an anonymous reader who sees PUBLIC records only. The process's own upkeep, which acts for nobody
// (EraseExpired and ReplayErasures, run by the sweeps), takes no caller and is not reachable from a request.
type Caller struct {
	Business *Business
	Project  *Project
	KeyID    string // the API key's id, for rate limits and audit
	// SubscriptionKeyID is the id of the subscription key the caller authenticated with: key management
	// checks that it, like the API key, is not in a rotation overlap (service/keyauthority.go).
	SubscriptionKeyID string

	operator bool // set by Operator only: no literal outside this package can make one
}

// ActorOperator is the actor the audit trail records for a change made by the operator.
const ActorOperator = "cli"

// Operator returns the operator's caller: the party of seald's operator commands, who holds the master key
// and the database and may act on any record of any business. It has no business, project or key, so it
// cannot seal or keep webhooks (those belong to a project). Nothing on the HTTP side makes one: an API
// request is a project's caller or nobody.
func Operator() *Caller { return &Caller{operator: true} }

// IsOperator reports whether c is the operator's caller (Operator).
func (c *Caller) IsOperator() bool { return c != nil && c.operator }

// Owns reports whether c is a project's caller of the given business.
func (c *Caller) Owns(businessID string) bool {
	return c != nil && !c.operator && c.Business != nil && c.Business.BusinessID == businessID
}

// Actor is what the audit trail records as the author of c's changes: the API key, or ActorOperator.
func (c *Caller) Actor() string {
	if c.IsOperator() {
		return ActorOperator
	}
	return c.KeyID
}

// ErrNoCaller is the answer to a call that names nobody (a nil *Caller): a route that forgot authentication
// gets a 401, not the rights of whoever a missing caller once meant.
var ErrNoCaller = Errorf(EUNAUTHORIZED, "this operation needs a caller: send the Ocp-Apim-Subscription-Key and Api-Key headers")
