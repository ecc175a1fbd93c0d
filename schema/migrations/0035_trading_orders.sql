-- Orders of managed trading (issue 21, POST /v1/trading/orders). Each is run by workflow order/<id>:
-- its swap (and, when the router's allowance is short, an ERC-20 approve before it) is a wallet
-- transaction of the order's wallet (swap_tx_id, approve_tx_id, sent by wallettx/<id> children), judged
-- by the wallet's policy with the order's USD value; its fills are the pair Swap events of the swap's
-- receipt. type and parent_order_id leave room for limit, stop, dca and twap orders (a parent and its
-- child orders); only market orders exist yet. fee_millicredits is the trading fee, held on the
-- account's credits when the order is placed (hold reference order/<id>) and charged once it fills.
CREATE TABLE trading_orders (
    id               text PRIMARY KEY,
    account_id       text NOT NULL REFERENCES accounts (id),
    project_id       text,
    key_id           text,
    wallet_id        text NOT NULL REFERENCES wallets (id),
    type             text NOT NULL DEFAULT 'market' CHECK (type IN ('market', 'limit', 'stop', 'dca', 'twap')),
    parent_order_id  text REFERENCES trading_orders (id),
    quote_id         text,
    status           text NOT NULL CHECK (status IN ('pending_approval', 'open', 'submitted', 'filled', 'failed', 'cancelled', 'expired')),
    side             text NOT NULL CHECK (side IN ('buy', 'sell')),
    base             text NOT NULL,
    quote            text NOT NULL,
    amount_kind      text NOT NULL CHECK (amount_kind IN ('exact_in', 'exact_out')),
    path             text[] NOT NULL,
    amount_in        numeric NOT NULL CHECK (amount_in > 0),
    amount_out       numeric NOT NULL CHECK (amount_out > 0),
    bound            numeric NOT NULL CHECK (bound > 0),
    slippage_bps     integer NOT NULL,
    usd_cents        bigint,
    fee_millicredits bigint NOT NULL DEFAULT 0,
    approval_id      text,
    approve_tx_id    text,
    swap_tx_id       text NOT NULL UNIQUE,
    swap_tx_hash     text,
    filled_in        numeric,
    filled_out       numeric,
    gas_wei          numeric,
    failure_reason   text,
    error_message    text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    filled_at        timestamptz
);
CREATE INDEX trading_orders_account ON trading_orders (account_id, created_at DESC, id DESC);
CREATE INDEX trading_orders_parent ON trading_orders (parent_order_id) WHERE parent_order_id IS NOT NULL;

-- An order's fills: one per pair Swap event of its swap's receipt (a multi-hop swap has one per hop),
-- recorded once (the primary key).
CREATE TABLE trading_fills (
    order_id      text NOT NULL REFERENCES trading_orders (id),
    tx_hash       text NOT NULL,
    log_index     integer NOT NULL,
    pair          text NOT NULL,
    token_in      text NOT NULL,
    token_out     text NOT NULL,
    amount_in     numeric NOT NULL,
    amount_out    numeric NOT NULL,
    block_number  bigint NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tx_hash, log_index)
);
CREATE INDEX trading_fills_order ON trading_fills (order_id);
