-- A run the API's sweep could not settle (its approval row is missing, Temporal refused the start) is
-- retried later rather than first by every sweep: each attempt first claims the run by setting
-- start_retry_at (the attempt's time plus internal/run's SweepRetry), which also keeps several sweeping
-- processes from handling the same run at once, and a process that dies mid-attempt from holding it for
-- ever. Sweeps take due runs in order of coalesce(start_retry_at, created_at), so a retried run goes to
-- the back; one still unsettled past run.LostAfter is failed with run_lost.
ALTER TABLE runs ADD COLUMN start_retry_at timestamptz;
DROP INDEX runs_start_unchecked;
CREATE INDEX runs_start_unchecked ON runs ((coalesce(start_retry_at, created_at)))
    WHERE status IN ('queued', 'awaiting_approval') AND start_checked_at IS NULL;
