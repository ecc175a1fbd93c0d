-- Order kinds of managed trading (issue 21, seed 002): limit and stop orders wait, in their workflow
-- order/<id>, until the pool's price reaches trigger_price (the limitPrice or stopPrice, quote token
-- per base token) or expires_at passes. Their swap is recorded only when they fire (priced afresh, so
-- the bound and the router's deadline are those of the moment they fire); until then only the trading
-- fee is held.
ALTER TABLE trading_orders
    ADD COLUMN trigger_price numeric CHECK (trigger_price > 0),
    ADD COLUMN expires_at    timestamptz;
