-- Quotes and spend of managed wallets (issue 19). A quote (quo_…) records what a send would do and the
-- policy's verdict, for 60 seconds. wallet_spends holds each outbound transaction's USD value against the
-- wallet's rolling 24-hour limit: reserved under the wallet's row lock before the transaction is signed,
-- released (released_at) if it fails, so concurrent sends cannot spend past the limit together.
CREATE TABLE wallet_quotes (
    id             text PRIMARY KEY,
    wallet_id      text NOT NULL REFERENCES wallets (id),
    account_id     text NOT NULL,
    to_address     text NOT NULL,
    asset          text NOT NULL,
    token          text,
    atomic         numeric NOT NULL CHECK (atomic > 0),
    decimals       integer NOT NULL,
    usd_cents      bigint,
    contract_call  boolean NOT NULL,
    data           bytea,
    verdict        jsonb NOT NULL,
    expires_at     timestamptz NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE wallet_spends (
    wallet_id       text NOT NULL REFERENCES wallets (id),
    transaction_id  text NOT NULL,
    cents           bigint NOT NULL CHECK (cents >= 0),
    created_at      timestamptz NOT NULL DEFAULT now(),
    released_at     timestamptz,
    PRIMARY KEY (wallet_id, transaction_id)
);

CREATE INDEX wallet_spends_recent ON wallet_spends (wallet_id, created_at) WHERE released_at IS NULL;
