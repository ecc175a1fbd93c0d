-- Accounts, projects, API keys, credit tokens, idempotency records, runs, audit events, credit entries.

CREATE TABLE accounts (
    id          text PRIMARY KEY,
    name        text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE projects (
    id          text PRIMARY KEY,
    account_id  text NOT NULL REFERENCES accounts (id),
    name        text NOT NULL,
    status      text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_account ON projects (account_id, created_at, id);

CREATE TABLE api_keys (
    id            text PRIMARY KEY,
    account_id    text NOT NULL REFERENCES accounts (id),
    project_id    text REFERENCES projects (id),
    parent_id     text REFERENCES api_keys (id),
    ancestors     text[] NOT NULL DEFAULT '{}',
    name          text NOT NULL DEFAULT '',
    prefix        text NOT NULL,
    secret_hash   bytea NOT NULL UNIQUE,
    scopes        text[] NOT NULL,
    services      text[] NOT NULL,
    limits        jsonb NOT NULL DEFAULT '[]',
    created_at    timestamptz NOT NULL DEFAULT now(),
    revoked_at    timestamptz,
    last_used_at  timestamptz
);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at, id);
CREATE INDEX api_keys_ancestors ON api_keys USING gin (ancestors);

-- A credit token (JWT) authorises one POST /v1/api-keys; its jti is recorded with the key it made.
CREATE TABLE credit_token_uses (
    jti         text PRIMARY KEY,
    account_id  text NOT NULL REFERENCES accounts (id),
    key_id      text NOT NULL REFERENCES api_keys (id),
    used_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE idempotency_keys (
    account_id        text NOT NULL,
    key               text NOT NULL,
    seed              text NOT NULL,
    fingerprint       bytea NOT NULL,
    method            text NOT NULL,
    path              text NOT NULL,
    locked_until      timestamptz,
    response_status   integer,
    response_headers  jsonb,
    response_body     bytea,
    response_sealed   boolean NOT NULL DEFAULT false,
    created_at        timestamptz NOT NULL DEFAULT now(),
    expires_at        timestamptz NOT NULL,
    PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);

CREATE TABLE runs (
    id               text PRIMARY KEY,
    account_id       text NOT NULL REFERENCES accounts (id),
    project_id       text REFERENCES projects (id),
    key_id           text NOT NULL REFERENCES api_keys (id),
    service_id       text NOT NULL,
    operation_id     text NOT NULL,
    status           text NOT NULL CHECK (status IN ('queued', 'running', 'awaiting_approval', 'succeeded', 'failed', 'cancelled')),
    input            jsonb NOT NULL,
    output           jsonb,
    error_code       text,
    error_message    text,
    approval_id      text,
    charged_millicredits bigint NOT NULL DEFAULT 0,
    workflow_id      text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    completed_at     timestamptz
);
CREATE INDEX runs_scope ON runs (account_id, project_id, created_at DESC, id DESC);

CREATE TABLE audit_events (
    id          text PRIMARY KEY,
    account_id  text NOT NULL,
    project_id  text,
    key_id      text,
    operation   text NOT NULL,
    method      text NOT NULL,
    path        text NOT NULL,
    status      integer NOT NULL,
    request_id  text NOT NULL,
    client_ip   text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_events_scope ON audit_events (account_id, project_id, created_at DESC, id DESC);

-- Credits are integers: 1 credit = 1000 millicredits. The balance is the sum of an account's entries.
CREATE TABLE credit_entries (
    id           text PRIMARY KEY,
    account_id   text NOT NULL REFERENCES accounts (id),
    millicredits bigint NOT NULL,
    kind         text NOT NULL,
    reference    text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (account_id, reference)
);
