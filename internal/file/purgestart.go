package file

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// PurgeWorkflowID is the id of a deleted file's purge workflow.
func PurgeWorkflowID(fileID string) string { return "file-purge/" + fileID }

// Engine starts workflows (a Temporal client).
type Engine interface {
	ExecuteWorkflow(ctx context.Context, opts sdkclient.StartWorkflowOptions, workflow any, args ...any) (sdkclient.WorkflowRun, error)
}

// Purges start the purge timers of deleted files: at the delete, and from a sweep for the deletes whose
// start failed (Temporal away, the process died between the delete and the start).
type Purges struct {
	Store  *Store
	Engine Engine
}

// Start starts the deleted file's purge workflow, due at its purge_at; one already started is fine.
func (p *Purges) Start(ctx context.Context, f *schema.File) error {
	if f.PurgeAt == nil {
		return fmt.Errorf("start purge of file %s: it is not deleted", f.ID)
	}
	opts := sdkclient.StartWorkflowOptions{ID: PurgeWorkflowID(f.ID), TaskQueue: workflows.TaskQueue}
	_, err := p.Engine.ExecuteWorkflow(ctx, opts, workflows.FilePurgeWorkflowName,
		workflows.FilePurgeParams{FileID: f.ID, PurgeAt: *f.PurgeAt})
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if err != nil && !errors.As(err, &started) {
		return fmt.Errorf("start purge of file %s: %w", f.ID, err)
	}
	return nil
}

// sweepBatch bounds the files one sweep starts purges for.
const sweepBatch = 500

// Sweep (re)starts the purges of the deleted files that may lack one: those deleted between settle and
// window ago (recent deletes whose start may have failed; a running purge answers "already started"),
// and those an hour past their purge time (still there, so their purge never ran). It answers how many
// starts it made. Run it more often than window, so every delete is seen while recent.
func (p *Purges) Sweep(ctx context.Context, settle, window time.Duration) (int, error) {
	now := p.Store.now().UTC()
	var rows []schema.File
	err := p.Store.db.NewSelect().Model(&rows).Where("status = ?", schema.FileDeleted).
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("deleted_at BETWEEN ? AND ?", now.Add(-window), now.Add(-settle)).
				WhereOr("purge_at < ?", now.Add(-time.Hour))
		}).OrderExpr("deleted_at").Limit(sweepBatch).Scan(ctx)
	if err != nil {
		return 0, fmt.Errorf("list deleted files to purge: %w", err)
	}
	n := 0
	for i := range rows {
		if err := p.Start(ctx, &rows[i]); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
