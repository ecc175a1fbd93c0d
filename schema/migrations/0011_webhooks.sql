-- Webhook endpoints of an account (project-less scope) or of one project. The signing secret is sealed
-- with AES-256-GCM under the master key, bound to the row by aad = id. After a rotation the previous
-- secret keeps signing beside the new one until previous_secret_expires_at (24 h).
CREATE TABLE webhooks (
    id                         text PRIMARY KEY,
    account_id                 text NOT NULL REFERENCES accounts (id),
    project_id                 text REFERENCES projects (id),
    url                        text NOT NULL,
    events                     text[] NOT NULL CHECK (cardinality(events) > 0),
    description                text NOT NULL DEFAULT '',
    enabled                    boolean NOT NULL DEFAULT true,
    disabled_reason            text,
    secret_sealed              bytea NOT NULL,
    previous_secret_sealed     bytea,
    previous_secret_expires_at timestamptz,
    created_at                 timestamptz NOT NULL DEFAULT now(),
    updated_at                 timestamptz NOT NULL DEFAULT now(),
    CHECK ((previous_secret_sealed IS NULL) = (previous_secret_expires_at IS NULL))
);
CREATE INDEX webhooks_scope ON webhooks (account_id, project_id, created_at DESC, id DESC);
