package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// FilePurgeParams is the input of FilePurgeWorkflow: the soft-deleted file and when it is removed for
// good (its deletion time plus the grace period, decided by the API when it deleted the file).
type FilePurgeParams struct {
	FileID  string
	PurgeAt time.Time
}

// purgeOptions retry the purge until it succeeds: removing the blob and the row is idempotent, and a
// file must never be left behind by a store that was away for a while.
var purgeOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 2 * time.Minute,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 10 * time.Minute,
	},
}

// FilePurgeWorkflow (workflow id file-purge/<fileId>) waits on a durable timer until the soft-deleted
// file's purge time and then removes its bytes and its row for good. The timer lives in Temporal, so a
// crash of any process never leaves the file behind, and an operator sees every pending purge.
func FilePurgeWorkflow(ctx workflow.Context, p FilePurgeParams) error {
	if wait := p.PurgeAt.Sub(workflow.Now(ctx)); wait > 0 {
		if err := workflow.Sleep(ctx, wait); err != nil {
			return fmt.Errorf("wait to purge file %s: %w", p.FileID, err)
		}
	}
	actx := workflow.WithActivityOptions(ctx, purgeOptions)
	if err := workflow.ExecuteActivity(actx, ActivityPurgeFile, p.FileID).Get(ctx, nil); err != nil {
		return fmt.Errorf("purge file %s: %w", p.FileID, err)
	}
	return nil
}
