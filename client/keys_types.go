package client

import "time"

// Limit is one per-key limit. Exactly one of RequestsPerMinute and CreditsPerDay is set.
type Limit struct {
	Operation         string `json:"operation" doc:"Selector: a limit operation id, *, or a services.invoke.<serviceId>[.<operationId>] / runs.create.<serviceId>[.<operationId>] form."`
	RequestsPerMinute int64  `json:"requestsPerMinute,omitempty" minimum:"1" doc:"Requests allowed per rolling minute."`
	CreditsPerDay     int64  `json:"creditsPerDay,omitempty" minimum:"1" doc:"Credits that may be charged per UTC day (credit-metered operations only)."`
}

// APIKey is an API key as the API shows it. Secret is set only in the answer that created it.
type APIKey struct {
	ID        string     `json:"id" doc:"Key id (key_...)."`
	Name      string     `json:"name"`
	Secret    string     `json:"secret,omitempty" doc:"The svc_sk_ secret; shown once, in the creation answer only."`
	Prefix    string     `json:"prefix" doc:"The first characters of the secret, to recognise it."`
	Scopes    []string   `json:"scopes"`
	Services  []string   `json:"services" doc:"Service ids the key may use; [\"*\"] means every service."`
	Limits    []Limit    `json:"limits"`
	ParentID  *string    `json:"parentId"`
	ProjectID *string    `json:"projectId"`
	CreatedAt time.Time  `json:"createdAt"`
	RevokedAt *time.Time `json:"revokedAt,omitempty"`
	// Current marks the key that made the request, in listings.
	Current bool `json:"current,omitempty"`
}

// CreateAPIKeyRequest is the body of POST /v1/api-keys. Every field is optional: a first key gets every
// scope and service; a child key inherits what it omits from its parent and may only narrow it.
type CreateAPIKeyRequest struct {
	Name string `json:"name,omitempty" maxLength:"200" doc:"A label for people."`
	// Scopes and Services: nil (sent as null) inherits the parent's; an empty list asks for none.
	Scopes    []string `json:"scopes" required:"false" doc:"Subset of the parent's scopes; null or absent inherits them."`
	Services  []string `json:"services" required:"false" doc:"Subset of the parent's services; null or absent inherits them."`
	Limits    []Limit  `json:"limits,omitempty" doc:"Limits; a child keeps every limit of its parent, at most as wide."`
	ProjectID string   `json:"projectId,omitempty" doc:"Bind the key to one project."`
}

// APIKeyEnvelope answers the creation or revocation of one key.
type APIKeyEnvelope struct {
	OK     bool   `json:"ok"`
	APIKey APIKey `json:"apiKey"`
}

// APIKeyList answers GET /v1/api-keys.
type APIKeyList struct {
	OK         bool     `json:"ok"`
	APIKeys    []APIKey `json:"apiKeys"`
	NextCursor *string  `json:"nextCursor"`
}
