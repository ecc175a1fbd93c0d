-- Parent orders of managed trading (issue 21, seed 002): a twap order splits its amount into `slices`
-- child orders placed at even intervals over duration_ms by its workflow order/<id>; a dca order places
-- one child order of its per-slice amount at each fire of its Temporal schedule order/<id> (`every`: a
-- Go duration or a 5-field cron expression), `slices` times. A child order is a market order with
-- parent_order_id and its slice_index (its place among the parent's children): one per index, so a
-- slice is never placed twice. A parent's fee_millicredits is the trading fee of each of its slices
-- (held when a slice is placed, charged when it fills); the parent itself holds nothing. paused says a
-- dca order's schedule is paused.
ALTER TABLE trading_orders
    ADD COLUMN slices      integer CHECK (slices BETWEEN 1 AND 100),
    ADD COLUMN slice_index integer CHECK (slice_index >= 0),
    ADD COLUMN duration_ms bigint CHECK (duration_ms > 0),
    ADD COLUMN every       text,
    ADD COLUMN paused      boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX trading_orders_parent_slice ON trading_orders (parent_order_id, slice_index)
    WHERE parent_order_id IS NOT NULL;
