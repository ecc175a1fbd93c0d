package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Operations of DatabaseWorkflow.
const (
	DatabaseOpProvision   = "provision"
	DatabaseOpDeprovision = "deprovision"
)

// DatabaseParams is the input of DatabaseWorkflow: the account and the operation that started it.
type DatabaseParams struct {
	AccountID string
	Op        string
}

// DatabaseWorkflowID is the workflow id of an account's managed database.
func DatabaseWorkflowID(accountID string) string { return "database/" + accountID }

// databaseOptions retry provisioning and deprovisioning until they succeed: every step is idempotent,
// and an account's database must never be left half made or half dropped by a cluster that was away.
var databaseOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 5 * time.Minute,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
	},
}

// maxDatabaseOps bounds the operations one run performs before it continues as new, keeping its
// history short however often an account provisions and deprovisions while it runs.
const maxDatabaseOps = 20

// DatabaseWorkflow (workflow id database/<accountId>) provisions or deprovisions an account's managed
// database. The API starts it with SignalWithStart, so a request while it runs joins it: the signal
// carries the operation asked for, and after each operation the workflow takes the latest operation
// signalled meanwhile (skipping one equal to the operation just done, which the start's own signal
// repeats). Temporal refuses to complete a run with unread signals, so no request is lost.
func DatabaseWorkflow(ctx workflow.Context, p DatabaseParams) error {
	signals := workflow.GetSignalChannel(ctx, SignalDatabaseOp)
	actx := workflow.WithActivityOptions(ctx, databaseOptions)
	op := p.Op
	for done := 0; op != ""; done++ {
		if done == maxDatabaseOps {
			return workflow.NewContinueAsNewError(ctx, DatabaseWorkflowName, DatabaseParams{AccountID: p.AccountID, Op: op})
		}
		if err := databaseOp(actx, p.AccountID, op); err != nil {
			return err
		}
		next := ""
		var s string
		for signals.ReceiveAsync(&s) {
			next = s
		}
		if next == op {
			next = ""
		}
		op = next
	}
	return nil
}

// databaseOp runs one operation's activity.
func databaseOp(ctx workflow.Context, accountID, op string) error {
	activity := ActivityProvisionDatabase
	switch op {
	case DatabaseOpProvision:
	case DatabaseOpDeprovision:
		activity = ActivityDeprovisionDatabase
	default:
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("unknown database operation %q", op), "UnknownOp", nil)
	}
	if err := workflow.ExecuteActivity(ctx, activity, accountID).Get(ctx, nil); err != nil {
		return fmt.Errorf("%s the database of account %s: %w", op, accountID, err)
	}
	return nil
}
