-- Fee claims (issue 20, POST /token-launches/{tokenAddress}/fees/claim): each is run by workflow
-- feeclaim/<id>, which sends FeesManager.collectFees(poolId) from the caller's managed wallet (a
-- beneficiary of the token's pool) as the wallet transaction transaction_id (derived from the claim's
-- id), its gas paid by the platform's sponsor first, and records the Release event's amounts.
CREATE TABLE fee_claims (
    id              text PRIMARY KEY,
    account_id      text NOT NULL REFERENCES accounts (id),
    project_id      text,
    key_id          text,
    wallet_id       text NOT NULL,
    wallet_address  text NOT NULL,
    chain           text NOT NULL,
    token_address   text NOT NULL,
    pool_id         text NOT NULL,
    status          text NOT NULL CHECK (status IN ('claiming', 'claimed', 'failed')),
    transaction_id  text NOT NULL UNIQUE,
    tx_hash         text,
    block_number    bigint,
    gas_used        bigint,
    amount0         numeric,
    amount1         numeric,
    error_code      text,
    error_message   text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    claimed_at      timestamptz
);
CREATE INDEX fee_claims_account ON fee_claims (account_id, created_at DESC);
CREATE INDEX fee_claims_claiming ON fee_claims (created_at) WHERE status = 'claiming';
