-- Database transfers (seed 000 "Managed databases", issue 17): portable copies of an account's managed
-- database, each run by the workflow dbtransfer/<id>. An export writes a signed ZIP archive into the blob
-- store (archive_key); an import receives the archive as numbered parts (database_transfer_parts), which
-- the workflow concatenates, verifies and restores once the part list is closed. Statuses:
--   awaiting_parts (imports only) -> running -> completed | failed,
--   and cancelled or expired from any but failed (a completed import is final; a completed export's archive
--   is deleted, and the transfer expired, a day after it was written).
-- import_xid is the account database's transaction that restored an import, recorded just before it
-- commits, so a retry after a crash asks PostgreSQL (pg_xact_status) whether the restore committed instead
-- of restoring twice.
CREATE TABLE database_transfers (
    id               text PRIMARY KEY,
    account_id       text NOT NULL REFERENCES accounts (id),
    kind             text NOT NULL CHECK (kind IN ('export', 'import')),
    status           text NOT NULL CHECK (status IN ('awaiting_parts', 'running', 'completed', 'failed', 'cancelled', 'expired')),
    allow_unsigned   boolean NOT NULL DEFAULT false,
    archive_key      text,
    archive_bytes    bigint,
    archive_sha256   text,
    archive_key_id   text,
    tables_done      integer NOT NULL DEFAULT 0,
    tables_total     integer NOT NULL DEFAULT 0,
    data_bytes       bigint NOT NULL DEFAULT 0,
    progress_bytes   bigint NOT NULL DEFAULT 0,
    import_xid       bigint,
    error_code       text,
    error_message    text,
    cancel_requested_at timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    completed_at     timestamptz,
    expires_at       timestamptz
);

CREATE INDEX database_transfers_account ON database_transfers (account_id, created_at DESC);

CREATE TABLE database_transfer_parts (
    transfer_id  text NOT NULL REFERENCES database_transfers (id) ON DELETE CASCADE,
    part_number  integer NOT NULL CHECK (part_number BETWEEN 1 AND 10000),
    bytes        bigint NOT NULL CHECK (bytes >= 0),
    sha256       text NOT NULL,
    blob_key     text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (transfer_id, part_number)
);
