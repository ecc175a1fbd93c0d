-- Handoffs through the platform (issue 22, POST /api/handoff). A send action records one row and starts
-- workflow handoff/<id>: it writes the vault transfer (transfer_id once written) on a worker that has
-- the vault, then waits for a receiver's ack until ack_deadline; it ends acknowledged (acks holds the ack
-- files' contents), expired, or failed (a payload could not be sent: error_message says why). target is
-- what the caller asked for; machine_id, host, agent_id, runtime and worker_class are what the planner
-- resolved. Files are the caller's absolute paths on the machine with the vault.
CREATE TABLE handoffs (
    id             text PRIMARY KEY,
    account_id     text NOT NULL REFERENCES accounts (id),
    project_id     text,
    key_id         text,
    action         text NOT NULL CHECK (action IN ('send-file', 'send-task', 'send-file-task')),
    status         text NOT NULL CHECK (status IN ('sending', 'awaiting_ack', 'acknowledged', 'expired', 'failed')),
    target         text NOT NULL,
    machine_id     text NOT NULL,
    host           text,
    runtime        text,
    agent_id       text,
    worker_class   text,
    files          text[] NOT NULL DEFAULT '{}',
    task           text,
    note           text,
    transfer_id    text,
    acks           jsonb NOT NULL DEFAULT '[]',
    error_message  text,
    ack_deadline   timestamptz NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    ended_at       timestamptz
);
CREATE INDEX handoffs_account ON handoffs (account_id, created_at DESC, id DESC);
