-- App x402 payments (issue 26, "x402 pay-per-call"). Every x402.fetch call of an app records one row
-- per (account, app, visitor) before anything goes out, under a transaction-scoped advisory lock of that
-- triple, so the seed 002 limits (10 calls a minute and 10 USD a day per visitor and app) hold across
-- API processes: the minute counts every row, the day sums amount_cents of the rows that pay
-- (paying, paid, unsettled). url keeps scheme, host and path only (a query string may carry secrets).
-- A payment also reserves its USD value in wallet_spends (transaction_id = id), so the wallet's own
-- daily limit counts it.
CREATE TABLE app_x402_payments (
    id             text PRIMARY KEY,
    account_id     text NOT NULL REFERENCES accounts (id),
    project_id     text,
    app_slug       text NOT NULL,
    visitor        text NOT NULL,
    wallet_id      text NOT NULL REFERENCES wallets (id),
    method         text NOT NULL,
    host           text NOT NULL,
    url            text NOT NULL,
    status         text NOT NULL CHECK (status IN ('calling', 'free', 'refused', 'paying', 'paid', 'unsettled', 'failed')),
    http_status    integer,
    amount_atomic  numeric CHECK (amount_atomic > 0),
    amount_cents   bigint CHECK (amount_cents >= 0),
    network        text,
    asset          text,
    pay_to         text,
    payer          text,
    tx_hash        text,
    receipt        jsonb,
    error_message  text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX app_x402_payments_visitor ON app_x402_payments (account_id, app_slug, visitor, created_at);
