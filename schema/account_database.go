package schema

import (
	"time"

	"github.com/uptrace/bun"
)

// Statuses of an account's managed database (see migration 0019 and internal/accountdb).
const (
	DatabaseProvisioning   = "provisioning"
	DatabaseReady          = "ready"
	DatabaseDeprovisioning = "deprovisioning"
	DatabaseDeleted        = "deleted"
)

// AccountDatabase is an account's managed database: its names in the cluster, its roles' sealed
// passwords and its lifecycle status. One row per account.
type AccountDatabase struct {
	bun.BaseModel `bun:"table:account_databases"`

	AccountID      string     `bun:"account_id,pk"`
	DatabaseName   string     `bun:"database_name"`
	OwnerRole      string     `bun:"owner_role"`
	ReaderRole     string     `bun:"reader_role"`
	OwnerPassword  []byte     `bun:"owner_password"`
	ReaderPassword []byte     `bun:"reader_password"`
	Generation     int        `bun:"generation"`
	Status         string     `bun:"status"`
	CreatedAt      time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt      time.Time  `bun:"updated_at,nullzero,default:now()"`
	ReadyAt        *time.Time `bun:"ready_at"`
	DeletedAt      *time.Time `bun:"deleted_at"`
}
