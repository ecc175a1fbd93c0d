-- Files: an account's stored files (seed 000 "Projects, usage, files, connections", seed 002 storage rules).
-- The bytes live in the blob store under blob_key; this row is their metadata, with the size and SHA-256
-- computed while they streamed in. Delete is soft: status becomes 'deleted' (deleted_at, purge_at set),
-- the file leaves listings and reads at once and stops counting against the quota, and the purge removes
-- the row and its blob at purge_at. key_id is the key that uploaded the file (NULL for files the platform
-- writes itself).
CREATE TABLE files (
    id          text PRIMARY KEY,
    account_id  text NOT NULL REFERENCES accounts (id),
    project_id  text REFERENCES projects (id),
    key_id      text REFERENCES api_keys (id),
    name        text NOT NULL CHECK (octet_length(name) BETWEEN 1 AND 255),
    media_type  text NOT NULL,
    bytes       bigint NOT NULL CHECK (bytes >= 0),
    sha256      text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    purpose     text NOT NULL DEFAULT '',
    blob_key    text NOT NULL,
    status      text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleted')),
    deleted_at  timestamptz,
    purge_at    timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CHECK ((status = 'active') = (deleted_at IS NULL AND purge_at IS NULL))
);
-- Cursor listing by scope, newest first, optionally by purpose; the name-prefix filter (LIKE 'prefix%')
-- uses text_pattern_ops. Only live files are listed, so the indexes hold only them.
CREATE INDEX files_scope ON files (account_id, project_id, created_at DESC, id DESC) WHERE status = 'active';
CREATE INDEX files_purpose ON files (account_id, project_id, purpose, created_at DESC, id DESC)
    WHERE status = 'active';
CREATE INDEX files_name ON files (account_id, project_id, name text_pattern_ops) WHERE status = 'active';
CREATE INDEX files_purge ON files (purge_at) WHERE status = 'deleted';

-- An account's tier selects its storage limits (internal/file Tiers); `svcd accounts set-tier` changes it.
ALTER TABLE accounts ADD COLUMN tier text NOT NULL DEFAULT 'standard' CHECK (tier IN ('standard', 'club'));

-- Storage accounting, one row per account, locked (SELECT ... FOR UPDATE) by every change: used_bytes is
-- the sum of the account's live files, reserved_bytes the sum of its reservations (uploads streaming now).
-- A reservation is taken before an upload streams and either settled into a file row (same transaction)
-- or released; one whose process died is released by the sweep once expires_at passes.
CREATE TABLE storage_usage (
    account_id      text PRIMARY KEY REFERENCES accounts (id),
    used_bytes      bigint NOT NULL DEFAULT 0 CHECK (used_bytes >= 0),
    reserved_bytes  bigint NOT NULL DEFAULT 0 CHECK (reserved_bytes >= 0),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE storage_reservations (
    id          text PRIMARY KEY,
    account_id  text NOT NULL REFERENCES accounts (id),
    bytes       bigint NOT NULL CHECK (bytes >= 0),
    expires_at  timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX storage_reservations_expiry ON storage_reservations (expires_at);

-- Download volume per account and UTC month (month is its first day); the counter of a new month starts
-- at zero, which is the reset on the 1st.
CREATE TABLE download_volume (
    account_id  text NOT NULL REFERENCES accounts (id),
    month       date NOT NULL CHECK (extract(day FROM month) = 1),
    bytes       bigint NOT NULL DEFAULT 0 CHECK (bytes >= 0),
    PRIMARY KEY (account_id, month)
);
