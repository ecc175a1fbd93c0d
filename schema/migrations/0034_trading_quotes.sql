-- Quotes of managed trading (issue 21, POST /v1/trading/quotes). A quote (quo_…) records a swap as the
-- router priced it at block_number: the path, the amounts, the bound after slippage (minimum received
-- for exact_in, maximum paid for exact_out) and the wallet policy's verdict; an order placed from it
-- within 30 seconds (expires_at) swaps with that bound. Amounts are token units (numeric, no decimals).
CREATE TABLE trading_quotes (
    id            text PRIMARY KEY,
    account_id    text NOT NULL REFERENCES accounts (id),
    project_id    text,
    wallet_id     text NOT NULL REFERENCES wallets (id),
    side          text NOT NULL CHECK (side IN ('buy', 'sell')),
    base          text NOT NULL,
    quote         text NOT NULL,
    amount_kind   text NOT NULL CHECK (amount_kind IN ('exact_in', 'exact_out')),
    path          text[] NOT NULL,
    amount_in     numeric NOT NULL CHECK (amount_in > 0),
    amount_out    numeric NOT NULL CHECK (amount_out > 0),
    bound         numeric NOT NULL CHECK (bound > 0),
    slippage_bps  integer NOT NULL CHECK (slippage_bps BETWEEN 0 AND 5000),
    usd_cents     bigint,
    block_number  bigint NOT NULL,
    answer        jsonb NOT NULL,
    expires_at    timestamptz NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX trading_quotes_wallet ON trading_quotes (wallet_id, created_at);
