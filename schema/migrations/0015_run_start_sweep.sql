-- Runs left unstarted by a request that died between inserting the row and starting the workflow. The
-- API's sweep (internal/run/sweep.go) looks at each queued or awaiting_approval run once its creating
-- request must have ended (a minute), asks Temporal about its workflow, completes the start or fails the
-- run, and stamps start_checked_at so that later sweeps pass it by. The partial index holds only the runs
-- still to look at, so a sweep costs nothing while there are none.
ALTER TABLE runs ADD COLUMN start_checked_at timestamptz;
CREATE INDEX runs_start_unchecked ON runs (created_at)
    WHERE status IN ('queued', 'awaiting_approval') AND start_checked_at IS NULL;
