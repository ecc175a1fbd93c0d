-- Beneficiary transfers (issue 20, POST /user/amm/execute-transfer-beneficiary): each is run by workflow
-- beneficiary/<id>, which sends FeesManager.updateBeneficiary(poolId, newBeneficiary) from the caller's
-- managed wallet (a beneficiary of the token's pool) as the wallet transaction transaction_id (derived
-- from the transfer's id), its gas paid by the platform's sponsor first. The contract settles both
-- parties first: released0/1 are what the old beneficiary was paid (its Release event), shares what moved.
CREATE TABLE beneficiary_transfers (
    id               text PRIMARY KEY,
    account_id       text NOT NULL REFERENCES accounts (id),
    project_id       text,
    session_address  text,
    wallet_id        text NOT NULL,
    wallet_address   text NOT NULL,
    new_beneficiary  text NOT NULL,
    chain            text NOT NULL,
    token_address    text NOT NULL,
    pool_id          text NOT NULL,
    shares           numeric NOT NULL,
    status           text NOT NULL CHECK (status IN ('transferring', 'transferred', 'failed')),
    transaction_id   text NOT NULL UNIQUE,
    tx_hash          text,
    block_number     bigint,
    gas_used         bigint,
    released0        numeric,
    released1        numeric,
    error_code       text,
    error_message    text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    transferred_at   timestamptz
);
CREATE INDEX beneficiary_transfers_account ON beneficiary_transfers (account_id, created_at DESC);
CREATE INDEX beneficiary_transfers_transferring ON beneficiary_transfers (created_at) WHERE status = 'transferring';
