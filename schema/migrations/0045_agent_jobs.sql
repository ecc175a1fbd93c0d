-- Agent jobs (issue 25, "Agent jobs"). A prompt records one agent_jobs row and starts workflow
-- agentjob/<id>; its history lives here, never in a workflow payload. Threads group a conversation's
-- prompts; agent_messages are a thread's messages in order (the user's prompts, the model's answers and
-- tool calls, tool results), each written once, keyed by (thread, seq). agent_steps are a job's steps:
-- a model call (kind model: its reply, stored BEFORE the activity returns, so a retried activity reuses it
-- and the gateway's reference agentjob/<id>/model/<n> charges once), a tool call (kind tool: its arguments
-- with secrets redacted and its result, stored before the activity returns, so a retried activity never
-- calls the tool again) or a confirmation (kind confirmation: a money-moving or signing tool call waiting
-- for the user's decision). agent_daily_messages counts each account's prompts per UTC day under the
-- account's lock (the 100 / 1,000 per day tier limit).
CREATE TABLE agent_threads (
    id          text PRIMARY KEY,
    account_id  text NOT NULL REFERENCES accounts (id),
    project_id  text,
    title       text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_threads_account ON agent_threads (account_id, updated_at DESC, id DESC);

CREATE TABLE agent_jobs (
    id            text PRIMARY KEY,
    account_id    text NOT NULL REFERENCES accounts (id),
    project_id    text,
    key_id        text NOT NULL,
    thread_id     text NOT NULL REFERENCES agent_threads (id),
    prompt        text NOT NULL,
    status        text NOT NULL CHECK (status IN ('queued', 'running', 'awaiting_confirmation', 'succeeded', 'failed', 'cancelled')),
    answer        text,
    error_message text,
    -- untrusted: content from http_fetch, files or MCP tools entered this job's context.
    untrusted     boolean NOT NULL DEFAULT false,
    prompt_tokens     bigint NOT NULL DEFAULT 0,
    completion_tokens bigint NOT NULL DEFAULT 0,
    millicredits  bigint NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    ended_at      timestamptz
);
CREATE INDEX agent_jobs_account ON agent_jobs (account_id, created_at DESC, id DESC);
CREATE INDEX agent_jobs_thread ON agent_jobs (thread_id, created_at);

CREATE TABLE agent_steps (
    id            text PRIMARY KEY,
    job_id        text NOT NULL REFERENCES agent_jobs (id),
    n             integer NOT NULL,
    kind          text NOT NULL CHECK (kind IN ('model', 'tool', 'confirmation')),
    tool_name     text,
    tool_call_id  text,
    -- args are the tool call's arguments with secrets redacted; reply is the model's stored reply
    -- (its message as JSON) on model steps.
    args          jsonb,
    reply         jsonb,
    result        text,
    summary       text,
    status        text NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'pending', 'approved', 'rejected')),
    untrusted     boolean NOT NULL DEFAULT false,
    prompt_tokens     bigint NOT NULL DEFAULT 0,
    completion_tokens bigint NOT NULL DEFAULT 0,
    millicredits  bigint NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (job_id, n, kind)
);

CREATE TABLE agent_messages (
    thread_id  text NOT NULL REFERENCES agent_threads (id),
    seq        integer NOT NULL,
    job_id     text NOT NULL REFERENCES agent_jobs (id),
    -- message is one chat message (llm.Message as JSON); untrusted tool content is wrapped already.
    message    jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (thread_id, seq)
);

CREATE TABLE agent_daily_messages (
    account_id text NOT NULL REFERENCES accounts (id),
    day        date NOT NULL,
    count      integer NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, day)
);

-- A confirmation step is also an approval of kind agent_step (linked by agent_job_id and agent_step_id),
-- so the approvals routes decide it like /agent/job/{jobId}/confirm does; its outcome reaches workflow
-- agentjob/<agent_job_id>.
ALTER TABLE approvals DROP CONSTRAINT approvals_kind_check;
ALTER TABLE approvals ADD CONSTRAINT approvals_kind_check
    CHECK (kind IN ('run', 'service_action', 'wallet_transaction', 'wallet_signature', 'agent_step'));
ALTER TABLE approvals ADD COLUMN agent_job_id text, ADD COLUMN agent_step_id text;
