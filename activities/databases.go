package activities

import (
	"context"
	"errors"

	"github.com/svcplatform/svc/schema"
)

// DatabaseCluster provisions and deprovisions accounts' managed databases (accountdb.Cluster); both are
// idempotent, and both act only on what the account's row asks for, so a stale retry changes nothing.
type DatabaseCluster interface {
	Provision(ctx context.Context, accountID string) (*schema.AccountDatabase, error)
	// CompleteDeprovision drops a database whose row the API marked deprovisioning (any other is left).
	CompleteDeprovision(ctx context.Context, accountID string) (*schema.AccountDatabase, error)
}

// Databases are the activities of accounts' managed databases.
type Databases struct {
	// Cluster is where the databases live; nil fails the activities saying so (retried until a worker
	// has one).
	Cluster DatabaseCluster
}

// errNoCluster is what the activities answer on a worker built without a database cluster.
var errNoCluster = errors.New("this worker has no database cluster")

// ProvisionDatabase creates the account's database and roles and marks it ready.
func (d *Databases) ProvisionDatabase(ctx context.Context, accountID string) error {
	if d.Cluster == nil {
		return errNoCluster
	}
	_, err := d.Cluster.Provision(ctx, accountID)
	return err
}

// DeprovisionDatabase drops the account's database and roles and marks it deleted.
func (d *Databases) DeprovisionDatabase(ctx context.Context, accountID string) error {
	if d.Cluster == nil {
		return errNoCluster
	}
	_, err := d.Cluster.CompleteDeprovision(ctx, accountID)
	return err
}
