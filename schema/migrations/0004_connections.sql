-- Protected connections: upstream credentials of an account (project-less scope) or of one project.
-- The secret is sealed with AES-256-GCM under the master key, bound to the row by aad = id; no plaintext
-- part of it, and nothing derived from it, is stored.
CREATE TABLE connections (
    id             text PRIMARY KEY,
    account_id     text NOT NULL REFERENCES accounts (id),
    project_id     text REFERENCES projects (id),
    name           text NOT NULL,
    auth_type      text NOT NULL CHECK (auth_type IN ('header', 'bearer', 'basic')),
    header_name    text,
    secret_sealed  bytea NOT NULL,
    status         text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    rotated_at     timestamptz,
    CHECK ((auth_type = 'header') = (header_name IS NOT NULL))
);
CREATE INDEX connections_scope ON connections (account_id, project_id, created_at DESC, id DESC);
-- A name is unique within its scope (the project, or the account's project-less scope).
CREATE UNIQUE INDEX connections_scope_name ON connections (account_id, COALESCE(project_id, ''), name);
