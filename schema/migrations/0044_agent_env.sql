-- Issue 25: the agent's environment variables and user MCP servers (internal/agentenv), Club
-- subscriptions (internal/club) and credit auto top-up settings.
--
-- Secrets are envelope-encrypted per account: agent_data_keys holds one random data key per account,
-- sealed by the deployment's master key (aad = the account id); every value and header set is sealed by
-- that data key with the row's own identity as aad, so a ciphertext moved to another row or account
-- does not open.
CREATE TABLE agent_data_keys (
    account_id text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    sealed     bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE agent_env_vars (
    id           text PRIMARY KEY,
    account_id   text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name         text NOT NULL,
    value_sealed bytea NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (account_id, name)
);

CREATE TABLE agent_mcp_servers (
    id             text PRIMARY KEY,
    account_id     text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name           text NOT NULL,
    url            text NOT NULL,
    transport      text NOT NULL CHECK (transport IN ('http', 'sse')),
    header_names   text[] NOT NULL DEFAULT '{}',
    headers_sealed bytea,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (account_id, name)
);
CREATE INDEX agent_mcp_servers_account ON agent_mcp_servers (account_id, created_at, id);

-- One Club subscription per account, renewed by workflow club/<accountId>. period_end is when the
-- current paid period ends; cancel_at_period_end stops the renewal then; status is active, cancelled
-- (paid to period_end, not renewing), lapsed (a renewal failed) or ended. generation counts the
-- subscriptions the account started and period_number the periods of the current one: the ledger
-- reference of a charge is club:<accountId>:<generation>:<period_number>, so a retried charge posts once.
CREATE TABLE club_subscriptions (
    account_id           text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    period               text NOT NULL CHECK (period IN ('month', 'year')),
    status               text NOT NULL,
    period_start         timestamptz NOT NULL,
    period_end           timestamptz NOT NULL,
    period_number        integer NOT NULL DEFAULT 1,
    generation           integer NOT NULL DEFAULT 1,
    cancel_at_period_end boolean NOT NULL DEFAULT false,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now()
);

-- Auto top-up (svc llm credits auto): when the balance falls under below_credits, workflow
-- autotopup/<accountId> claims the account's launch fees and credits them up to target_credits.
CREATE TABLE autotopup_settings (
    account_id     text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    enabled        boolean NOT NULL,
    below_credits  bigint NOT NULL CHECK (below_credits >= 0),
    target_credits bigint NOT NULL CHECK (target_credits > below_credits),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
