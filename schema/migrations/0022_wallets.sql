-- Managed wallets (issue 19, seed 000 "Managed wallets", seed 002's wallet-level controls). Each wallet has
-- a fresh secp256k1 key. Envelope encryption: the private key is sealed with a data key of its own
-- (sealed_key), and the data key is sealed by the platform's master key (sealed_data_key); both bind the
-- wallet id and address as associated data, so a ciphertext moved to another row does not open. The key is
-- opened only by the signing activity. policy holds seed 002's controls (USD amounts in cents).
CREATE TABLE wallets (
    id               text PRIMARY KEY,
    account_id       text NOT NULL REFERENCES accounts (id),
    project_id       text,
    name             text NOT NULL DEFAULT '',
    chain            text NOT NULL,
    address          text NOT NULL UNIQUE CHECK (address ~ '^0x[0-9a-fA-F]{40}$'),
    sealed_key       bytea NOT NULL,
    sealed_data_key  bytea NOT NULL,
    policy           jsonb NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX wallets_account ON wallets (account_id, created_at DESC, id DESC);
