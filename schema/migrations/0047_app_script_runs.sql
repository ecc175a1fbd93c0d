-- App script runs (issue 26, "Backend scripts"). A run of an app's script records one row here and
-- starts workflow appscript/<id>; its single activity executes the script in the sandboxed engine and
-- records result, log, error and host_calls in one transaction with the status (a finished row is never
-- run again on a retry). trigger says who started it: the owner (POST .../run), the frontend (a viewer)
-- or a schedule entry of the manifest (always as the owner). key_id is the API key the run acts as for
-- the platform calls of its Host. The app is kept by id and slug: a run outlives its app's deletion.
CREATE TABLE app_script_runs (
    id           text PRIMARY KEY,
    account_id   text NOT NULL REFERENCES accounts (id),
    project_id   text,
    app_id       text NOT NULL,
    app_slug     text NOT NULL,
    script       text NOT NULL,
    trigger      text NOT NULL CHECK (trigger IN ('owner', 'frontend', 'schedule')),
    -- viewer is the account the run reads and writes appKV records for ('' for the owner).
    viewer       text NOT NULL DEFAULT '',
    key_id       text NOT NULL,
    status       text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
    args         jsonb NOT NULL DEFAULT '{}',
    result       jsonb,
    log          text NOT NULL DEFAULT '',
    error        text,
    host_calls   integer NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    finished_at  timestamptz
);
CREATE INDEX app_script_runs_app ON app_script_runs (account_id, app_slug, created_at DESC, id DESC);
CREATE INDEX app_script_runs_queued ON app_script_runs (created_at) WHERE status = 'queued';

-- The journal of a run's platform calls: call n's method, arguments' hash and answer, stored as the Host
-- answers it (never for secrets.*). A run retried after its worker died re-executes the script
-- (deterministic but for its platform calls) and is answered each journalled call from here instead of
-- performing it again, so an appKV write or an agent job happens once per run.
CREATE TABLE app_script_run_calls (
    run_id     text NOT NULL REFERENCES app_script_runs (id) ON DELETE CASCADE,
    n          integer NOT NULL,
    method     text NOT NULL,
    args_hash  text NOT NULL,
    result     jsonb,
    error      text,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, n)
);
