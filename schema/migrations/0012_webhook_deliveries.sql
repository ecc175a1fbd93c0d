-- Deliveries of events to webhook endpoints. A delivery is one event for one endpoint (or a replay of
-- an earlier delivery: replay_of), executed by the workflow delivery/<id>; each HTTP call it makes is an
-- attempt. The dispatcher inserts deliveries and marks their events dispatched in one transaction, then
-- starts the workflows and sets workflow_started; a delivery still pending with workflow_started false
-- is (re)started by the dispatcher's sweep, so a crash between the commit and the start loses nothing.
CREATE TABLE webhook_deliveries (
    id               text PRIMARY KEY,
    account_id       text NOT NULL REFERENCES accounts (id),
    project_id       text REFERENCES projects (id),
    webhook_id       text NOT NULL REFERENCES webhooks (id),
    event_id         text NOT NULL REFERENCES events (id),
    event_type       text NOT NULL,
    status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
    replay_of        text REFERENCES webhook_deliveries (id),
    workflow_started boolean NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    completed_at     timestamptz
);
CREATE INDEX webhook_deliveries_scope ON webhook_deliveries (account_id, project_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_unstarted ON webhook_deliveries (created_at) WHERE NOT workflow_started AND status = 'pending';

-- One HTTP call of a delivery. http_status is null when no answer came (timeout, refused address);
-- error says what went wrong, null on success.
CREATE TABLE webhook_attempts (
    delivery_id text NOT NULL REFERENCES webhook_deliveries (id),
    number      integer NOT NULL CHECK (number > 0),
    started_at  timestamptz NOT NULL,
    http_status integer,
    latency_ms  bigint NOT NULL,
    error       text,
    PRIMARY KEY (delivery_id, number)
);

-- Since when an endpoint's attempts have failed without a success in between; null while healthy. An
-- endpoint failing continuously for 5 days is disabled.
ALTER TABLE webhooks ADD COLUMN failing_since timestamptz;
