-- Partner keys (issue 20, seed 002's X-Partner-Key): organisation-level keys that deploy token launches
-- on behalf of an account, made by an operator with `svcd partners create`. Only the SHA-256 of the
-- secret is kept; prefix is its recognisable start for listings. A revoked key authenticates nothing.
CREATE TABLE partners (
    id          text PRIMARY KEY,
    account_id  text NOT NULL REFERENCES accounts (id),
    name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    prefix      text NOT NULL,
    secret_hash bytea NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);
CREATE INDEX partners_account ON partners (account_id);

-- The audit trail names the partner key behind a request made with one.
ALTER TABLE audit_events ADD COLUMN partner_id text;
