-- Automations (issue 18, seed 002 "automations"): cron-driven runs on Temporal Schedules. Each row has the
-- schedule automation/<id>, whose action is AutomationFireWorkflow; every fire starts at most one run,
-- whose id derives from the automation and the fire's scheduled time. The tier limits are counted here,
-- under the row's lock: executions (lifetime runs started), and day_runs, the runs of the UTC day `day`.
-- skipped counts fires that started no run because a limit refused them. key_id is the key that created
-- the automation: its per-key limits apply to every fire. status mirrors the schedule: active, paused
-- (by the owner, an operator or the lifetime limit), cancelled, completed; deleted_at removes it from
-- listings (it is also cancelled).
CREATE TABLE automations (
    id            text PRIMARY KEY,
    account_id    text NOT NULL REFERENCES accounts (id),
    project_id    text,
    key_id        text NOT NULL,
    name          text NOT NULL,
    cron          text NOT NULL,
    timezone      text NOT NULL DEFAULT 'UTC',
    service_id    text NOT NULL,
    operation_id  text NOT NULL,
    input         jsonb NOT NULL DEFAULT '{}',
    overlap       text NOT NULL CHECK (overlap IN ('skip', 'buffer_one', 'allow_all')),
    start_at      timestamptz,
    end_at        timestamptz,
    status        text NOT NULL CHECK (status IN ('active', 'paused', 'cancelled', 'completed')),
    note          text NOT NULL DEFAULT '',
    executions    bigint NOT NULL DEFAULT 0,
    skipped       bigint NOT NULL DEFAULT 0,
    day           date,
    day_runs      integer NOT NULL DEFAULT 0,
    last_fire_at  timestamptz,
    deleted_at    timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX automations_account ON automations (account_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

ALTER TABLE runs ADD COLUMN automation_id text, ADD COLUMN scheduled_at timestamptz;
CREATE INDEX runs_automation ON runs (automation_id, created_at DESC) WHERE automation_id IS NOT NULL;
