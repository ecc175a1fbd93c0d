-- Webhook deliveries are sent by one durable loop per endpoint (workflow webhook/<webhookId>, issue 24)
-- instead of one workflow per delivery. The loop's activity claims the endpoint's due deliveries from
-- this table: next_attempt_at is when the next attempt is due (null: the delivery belongs to a
-- per-delivery workflow delivery/<id> started before this migration, which the loop leaves alone);
-- attempt_count is how many attempts were recorded; lease_owner and lease_until mark the deliveries an
-- activity is sending, so no other activity takes them until the lease ends (the same activity retried
-- after a crash takes them back at once, with the same attempt number).
ALTER TABLE webhook_deliveries
    ADD COLUMN next_attempt_at timestamptz,
    ADD COLUMN attempt_count   integer NOT NULL DEFAULT 0,
    ADD COLUMN lease_owner     text,
    ADD COLUMN lease_until     timestamptz;

-- Deliveries recorded but never started are the loop's from now on.
UPDATE webhook_deliveries SET next_attempt_at = now() WHERE status = 'pending' AND NOT workflow_started;

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (webhook_id, next_attempt_at)
    WHERE status = 'pending' AND next_attempt_at IS NOT NULL;
