-- Approvals: a decision a person (a key with approvals:write) makes before an action runs. Each is
-- driven by a Temporal workflow approval/<id>; the row is its read model and the place where a decision
-- is made exactly once (a conditional update of a pending row).
CREATE TABLE approvals (
    id                 text PRIMARY KEY,
    account_id         text NOT NULL REFERENCES accounts (id),
    project_id         text REFERENCES projects (id),
    key_id             text NOT NULL REFERENCES api_keys (id),
    kind               text NOT NULL CHECK (kind IN ('run', 'service_action')),
    service_id         text NOT NULL,
    operation_id       text NOT NULL,
    input              jsonb NOT NULL,
    reason             text,
    run_id             text,
    status             text NOT NULL DEFAULT 'pending'
                       CHECK (status IN ('pending', 'approved', 'rejected', 'expired', 'cancelled')),
    decided_by_key_id  text REFERENCES api_keys (id),
    comment            text,
    workflow_id        text NOT NULL,
    expires_at         timestamptz NOT NULL,
    decided_at         timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX approvals_scope ON approvals (account_id, project_id, created_at DESC, id DESC);
CREATE INDEX approvals_run ON approvals (run_id) WHERE run_id IS NOT NULL;

-- The event outbox: what happened to runs and approvals, written in the transaction that made it
-- happen, for webhook delivery. seq orders events for a dispatcher; dispatched_at marks those handed on.
CREATE TABLE events (
    seq            bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id             text PRIMARY KEY,
    account_id     text NOT NULL,
    project_id     text,
    type           text NOT NULL,
    data           jsonb NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    dispatched_at  timestamptz
);
CREATE INDEX events_scope ON events (account_id, created_at, id);
CREATE INDEX events_undispatched ON events (seq) WHERE dispatched_at IS NULL;

-- When a run started running (after its approval, if it had one).
ALTER TABLE runs ADD COLUMN started_at timestamptz;
