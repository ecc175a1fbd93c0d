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
	// Seed 002's key flags.
	ReadOnly           bool                `json:"readOnly" doc:"Every request but a GET answers 403."`
	IPAllowlist        []string            `json:"ipAllowlist" doc:"Addresses and CIDR ranges the key may be used from; null allows any."`
	RecipientAllowlist *RecipientAllowlist `json:"recipientAllowlist" doc:"Recipients the key's wallet sends may go to, per address family; null allows any."`
}

// RecipientAllowlist restricts the recipients of a key's wallet sends, in addition to the wallet's
// permitted recipients. A null list allows any address of its family; an empty one none.
type RecipientAllowlist struct {
	EVM    []string `json:"evm" required:"false" doc:"0x addresses; null allows any EVM recipient."`
	Solana []string `json:"solana" required:"false" doc:"Solana-style (base58) addresses; null allows any."`
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
	// Seed 002's key flags; absent inherits the parent's, and a child may only narrow them.
	ReadOnly           *bool               `json:"readOnly,omitempty" doc:"Every request but a GET answers 403; a read-only parent's children are read-only."`
	IPAllowlist        []string            `json:"ipAllowlist,omitempty" doc:"Addresses and CIDR ranges (no wider than /8 IPv4, /16 IPv6) the key may be used from; a child's must lie inside its parent's."`
	RecipientAllowlist *RecipientAllowlist `json:"recipientAllowlist,omitempty" doc:"Recipients of the key's wallet sends per family; a child's lists must be subsets of its parent's."`
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
