package schema

import (
	"time"

	"github.com/uptrace/bun"
)

// APIKey is a stored key. Only the SHA-256 of its secret is kept.
type APIKey struct {
	bun.BaseModel `bun:"table:api_keys"`

	ID         string     `bun:"id,pk"`
	AccountID  string     `bun:"account_id"`
	ProjectID  *string    `bun:"project_id"`
	ParentID   *string    `bun:"parent_id"`
	Ancestors  []string   `bun:"ancestors,array"`
	Name       string     `bun:"name"`
	Prefix     string     `bun:"prefix"`
	SecretHash []byte     `bun:"secret_hash"`
	Scopes     []string   `bun:"scopes,array"`
	Services   []string   `bun:"services,array"`
	Limits     []Limit    `bun:"limits,type:jsonb"`
	CreatedAt  time.Time  `bun:"created_at,nullzero,default:now()"`
	RevokedAt  *time.Time `bun:"revoked_at"`
	// ReadOnly keys are answered 403 on every request that is not a GET.
	ReadOnly bool `bun:"read_only"`
	// IPAllowlist holds the addresses and CIDR ranges the key may be used from; nil allows any.
	IPAllowlist []string `bun:"ip_allowlist,array"`
	// RecipientAllowlist restricts the recipients of the key's wallet sends; nil allows any.
	RecipientAllowlist *RecipientAllowlist `bun:"recipient_allowlist,type:jsonb"`
}

// RecipientAllowlist is a key's allowed recipients per address family; a nil list allows any address of
// that family, an empty one none (so neither is omitted when stored).
type RecipientAllowlist struct {
	EVM    []string `json:"evm"`
	Solana []string `json:"solana"`
}

// Limit is one stored per-key limit (see client.Limit).
type Limit struct {
	Operation         string `json:"operation"`
	RequestsPerMinute int64  `json:"requestsPerMinute,omitempty"`
	CreditsPerDay     int64  `json:"creditsPerDay,omitempty"`
}
