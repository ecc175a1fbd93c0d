-- Seed 002's web sessions and key flags (issue 19).
--
-- Sign-in with Ethereum (EIP-4361): POST /auth/siwe/nonce issues a nonce kept here; POST /auth/siwe/verify
-- consumes it with one UPDATE ... WHERE used_at IS NULL AND expires_at > now, so a message is accepted at
-- most once whatever the number of API processes.
CREATE TABLE siwe_nonces (
    nonce      text PRIMARY KEY,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX siwe_nonces_expires_at ON siwe_nonces (expires_at);

-- The external addresses that sign in to an account (an address belongs to at most one account). An
-- account's owner links one by proving control of it with a signed SIWE message (POST /auth/siwe/link).
-- Managed wallets' addresses never sign in: their keys sign whatever a key with wallets:sign asks.
CREATE TABLE siwe_addresses (
    address    text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    key_id     text,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX siwe_addresses_account ON siwe_addresses (account_id);

-- Key flags: read-only (every non-GET answers 403), an IP allowlist (NULL: any address) and a recipient
-- allowlist ({evm?: [...], solana?: [...]}, NULL: any recipient). A child key inherits and only narrows them.
ALTER TABLE api_keys
    ADD COLUMN read_only boolean NOT NULL DEFAULT false,
    ADD COLUMN ip_allowlist text[],
    ADD COLUMN recipient_allowlist jsonb;

-- Who made a request through a web session (the signed-in address), beside key_id for API keys.
ALTER TABLE audit_events ADD COLUMN session_address text;
