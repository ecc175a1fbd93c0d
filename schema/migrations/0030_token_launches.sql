-- Token launches (issue 20, seed 002's POST /token-launches/deploy): each is run by workflow launch/<id>,
-- which sends FeesManager.launch from the caller's managed wallet as the wallet transaction
-- transaction_id (derived from the launch id), its gas paid by the platform's sponsor first.
CREATE TABLE token_launches (
    id                     text PRIMARY KEY,
    account_id             text NOT NULL REFERENCES accounts (id),
    project_id             text,
    key_id                 text,
    partner_id             text,
    status                 text NOT NULL CHECK (status IN ('deploying', 'deployed', 'failed')),
    token_name             text NOT NULL CHECK (length(token_name) BETWEEN 1 AND 100),
    token_symbol           text NOT NULL CHECK (length(token_symbol) BETWEEN 1 AND 10),
    chain                  text NOT NULL,
    fee_recipient_type     text NOT NULL CHECK (fee_recipient_type IN ('wallet', 'x', 'farcaster', 'ens')),
    fee_recipient_value    text NOT NULL,
    fee_recipient_address  text NOT NULL,
    deployer_address       text NOT NULL,
    wallet_id              text NOT NULL,
    transaction_id         text NOT NULL UNIQUE,
    salt                   text NOT NULL,
    vault_address          text NOT NULL,
    token_address          text,
    pool_address           text,
    pool_id                text,
    initializer            text,
    tx_hash                text,
    sponsor_tx_hash        text,
    error_code             text,
    error_message          text,
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now(),
    deployed_at            timestamptz
);
CREATE INDEX token_launches_newest ON token_launches (created_at DESC, id DESC);
CREATE INDEX token_launches_account_day ON token_launches (account_id, created_at);

-- Gas sponsorships (internal/sponsor): the platform's sponsor account tops a managed wallet up with the
-- gas of one of its transactions, once per transaction (the primary key). The signed bytes are stored
-- with the sponsor's nonce before they are broadcast, so a retry re-sends the same transaction. At most
-- a fixed number per wallet per UTC day (day).
CREATE TABLE gas_sponsorships (
    transaction_id  text PRIMARY KEY,
    wallet_id       text NOT NULL,
    account_id      text NOT NULL REFERENCES accounts (id),
    purpose         text NOT NULL,
    day             date NOT NULL,
    sponsor_address text NOT NULL,
    to_address      text NOT NULL,
    amount_wei      numeric NOT NULL CHECK (amount_wei >= 0),
    nonce           bigint,
    raw_tx          bytea,
    tx_hash         text,
    status          text NOT NULL CHECK (status IN ('reserved', 'sent', 'confirmed', 'skipped')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX gas_sponsorships_wallet_day ON gas_sponsorships (wallet_id, day);

-- The sponsor account's next nonce, taken under its row lock.
CREATE TABLE sponsor_nonces (
    address    text PRIMARY KEY,
    next_nonce bigint NOT NULL
);
