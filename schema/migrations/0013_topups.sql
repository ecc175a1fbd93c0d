-- x402 credit top-ups. A row is created when a signed payment (an EIP-3009 transferWithAuthorization)
-- has been verified, BEFORE it is settled: its unique (chain_id, asset, payer, nonce) reserves the
-- authorization, so concurrent copies of one signature find one top-up and credit once. The workflow
-- topup/<id> settles it on chain (status settled, tx_hash) and then credits the ledger (status credited)
-- in the transaction that posts the credits; a payment that cannot settle ends failed with a reason.
-- idempotency_key is the Idempotency-Key of the request that reserved it.
CREATE TABLE topups (
    id              text PRIMARY KEY,
    account_id      text NOT NULL REFERENCES accounts (id),
    project_id      text REFERENCES projects (id),
    receipt_id      text NOT NULL UNIQUE,
    amount_cents    bigint NOT NULL CHECK (amount_cents BETWEEN 500 AND 50000),
    millicredits    bigint NOT NULL CHECK (millicredits > 0),
    network         text NOT NULL,
    chain_id        numeric(78) NOT NULL,
    asset           text NOT NULL,
    pay_to          text NOT NULL,
    payer           text NOT NULL,
    nonce           text NOT NULL,
    value           numeric(78) NOT NULL,
    valid_after     numeric(78) NOT NULL,
    valid_before    numeric(78) NOT NULL,
    signature       text NOT NULL,
    x402_version    integer NOT NULL,
    idempotency_key text NOT NULL,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'settled', 'credited', 'failed')),
    tx_hash         text,
    failure_reason  text,
    failure_message text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    settled_at      timestamptz,
    credited_at     timestamptz,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (chain_id, asset, payer, nonce)
);
CREATE INDEX topups_account ON topups (account_id, created_at DESC, id DESC);
-- A retry of a request that paid finds its top-up by Idempotency-Key, so it is never asked to pay again.
CREATE INDEX topups_idempotency_key ON topups (account_id, idempotency_key);
