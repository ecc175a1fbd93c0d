package schema

import (
	"time"

	"github.com/uptrace/bun"
)

// Project groups an account's resources; every lookup is scoped to one project or to none.
type Project struct {
	bun.BaseModel `bun:"table:projects"`

	ID          string     `bun:"id,pk"`
	AccountID   string     `bun:"account_id"`
	Name        string     `bun:"name"`
	Status      string     `bun:"status"`
	Description string     `bun:"description"`
	CreatedAt   time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt   time.Time  `bun:"updated_at,nullzero,default:now()"`
	ArchivedAt  *time.Time `bun:"archived_at"`
}
