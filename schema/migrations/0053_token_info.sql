-- Token info (issue 27: svc tokens search / info): what a launched token's 24 h volume and the searches
-- need from the fee index.

-- A Swap's traded amounts (internal/feeindex): swap_amount0 and swap_amount1 are how much of the pool's
-- token0 and token1 went through it, the input side with its fee (amountIn), the output side as paid out
-- (amountOut). NULL on the other kinds and on swaps indexed before this migration (not counted in volumes).
ALTER TABLE fee_events
    ADD COLUMN swap_amount0 numeric(78, 0),
    ADD COLUMN swap_amount1 numeric(78, 0);

-- A pool's swaps over a time window (the 24 h volume).
CREATE INDEX fee_events_swaps_by_time ON fee_events (pool_id, block_time) WHERE kind = 'swap';

-- Searches by symbol or name prefix, any case.
CREATE INDEX fee_pools_symbol_prefix ON fee_pools (lower(symbol) text_pattern_ops);
CREATE INDEX fee_pools_name_prefix ON fee_pools (lower(name) text_pattern_ops);

-- A launched token's launch record by its address (its launch id).
CREATE INDEX token_launches_token ON token_launches (lower(token_address)) WHERE token_address IS NOT NULL;
