-- Artifacts: files and outputs that runs produce. The bytes live in a blob store (a local directory by
-- default) under blob_key; this row is their metadata, with the size and SHA-256 the store computed while
-- writing them, so a reader can verify what it received. Reading one needs artifacts:read and access to
-- service_id, the run's service. run_id has no foreign key, like approvals.run_id: an artifact row may be
-- written by the worker before or independently of the run's read model.
CREATE TABLE artifacts (
    id            text PRIMARY KEY,
    account_id    text NOT NULL REFERENCES accounts (id),
    project_id    text REFERENCES projects (id),
    run_id        text NOT NULL,
    service_id    text NOT NULL,
    name          text NOT NULL,
    content_type  text NOT NULL,
    size_bytes    bigint NOT NULL CHECK (size_bytes >= 0),
    sha256        text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    blob_key      text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX artifacts_scope ON artifacts (account_id, project_id, created_at DESC, id DESC);
CREATE INDEX artifacts_run ON artifacts (run_id, created_at DESC, id DESC);
