-- Managed databases (seed 000 "Managed databases", issue 17): one real PostgreSQL database per account in
-- the configured cluster, with two login roles: the owner (owns schema public; actions and imports) and the
-- reader (SELECT only; queries, records, exports). The roles' passwords are sealed with the platform's
-- secret box, their associated data binding the account id, the role and the generation, so a ciphertext
-- cannot be moved to another row or role. status is the lifecycle the database workflow
-- (database/<accountId>) drives: provisioning -> ready -> deprovisioning -> deleted (and a deleted
-- database may be provisioned again, as a new generation with new passwords).
CREATE TABLE account_databases (
    account_id       text PRIMARY KEY REFERENCES accounts (id),
    database_name    text NOT NULL UNIQUE CHECK (database_name ~ '^[a-z][a-z0-9_]{0,62}$'),
    owner_role       text NOT NULL UNIQUE CHECK (owner_role ~ '^[a-z][a-z0-9_]{0,62}$'),
    reader_role      text NOT NULL UNIQUE CHECK (reader_role ~ '^[a-z][a-z0-9_]{0,62}$'),
    owner_password   bytea NOT NULL,
    reader_password  bytea NOT NULL,
    generation       integer NOT NULL DEFAULT 1 CHECK (generation >= 1),
    status           text NOT NULL DEFAULT 'provisioning'
                     CHECK (status IN ('provisioning', 'ready', 'deprovisioning', 'deleted')),
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    ready_at         timestamptz,
    deleted_at       timestamptz
);
