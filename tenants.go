package seald

// TenantRequest creates a project, and its business when no business of that name exists yet.
type TenantRequest struct {
	Business    string
	Project     string
	Privacy     Privacy // PUBLIC when empty
	Network     string  // POLYGON when empty
	Description string
	Website     string
	Logo        string
	// RateLimit and RateBurst set the project's own request rate per API key (0: the server's).
	RateLimit float64
	RateBurst int
	// Retain is how long the project keeps stored copies (ParseRetention: "365d"); empty keeps them for ever.
	Retain string
}

// Tenant is what creating a tenant hands the operator, once: the ids and both secrets.
type Tenant struct {
	Business        *Business
	Project         *Project
	SubscriptionKey string
	APIKey          string
}

// TenantUpdate changes the details of a business and of one of its projects; a nil field is left as it is.
type TenantUpdate struct {
	BusinessID string // the business; through the API, the caller's own
	ProjectID  string // one of its projects, "" to change none; through the API, the caller's own

	Name, Description, Logo, Website             *string // the business's
	ProjectName, ProjectDescription, ProjectLogo *string // the project's
	// Retain is the project's retention period (ParseRetention; "forever" for none).
	Retain *string
}
