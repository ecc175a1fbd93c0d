-- Outbound transactions of managed wallets (issue 19), each run by the workflow wallettx/<id>: queued ->
-- broadcast -> confirmed | failed (and pending_approval, rejected once approvals of sends exist). The
-- signed transaction (raw_tx, tx_hash, nonce) is stored before it is broadcast, in the transaction that
-- takes its nonce from wallet_nonces, so a retry, a restart or a second worker broadcasts the same bytes
-- and never a second transaction.
CREATE TABLE wallet_transactions (
    id             text PRIMARY KEY,
    wallet_id      text NOT NULL REFERENCES wallets (id),
    account_id     text NOT NULL,
    project_id     text,
    key_id         text,
    quote_id       text,
    chain          text NOT NULL,
    to_address     text NOT NULL,
    asset          text NOT NULL,
    token          text,
    atomic         numeric NOT NULL,
    decimals       integer NOT NULL,
    usd_cents      bigint,
    tx_to          text NOT NULL,
    value          numeric NOT NULL,
    data           bytea,
    status         text NOT NULL CHECK (status IN ('pending_approval', 'queued', 'broadcast', 'confirmed', 'failed', 'rejected')),
    verdict        jsonb NOT NULL,
    nonce          bigint,
    raw_tx         bytea,
    tx_hash        text UNIQUE,
    error_code     text,
    error_message  text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    confirmed_at   timestamptz
);

CREATE INDEX wallet_transactions_wallet ON wallet_transactions (wallet_id, created_at DESC, id DESC);

CREATE TABLE wallet_nonces (
    wallet_id   text PRIMARY KEY REFERENCES wallets (id),
    next_nonce  bigint NOT NULL CHECK (next_nonce >= 0)
);
