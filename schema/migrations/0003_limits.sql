-- Per-key limit counters (internal/limit), shared by every API process. One row per limit owner (the key
-- that carries the limit), selector, unit and window:
--   unit 'requests'     - requestsPerMinute; window_start is a UTC minute; used counts the requests HANDED
--                         OUT to API processes as leases (a process serves its lease from memory and gives
--                         back what it did not use), so used <= the limit means no over-admission.
--   unit 'millicredits' - creditsPerDay; window_start is a UTC midnight; used counts reserved millicredits.
-- granted is scratch space: the amount the latest lease of the row handed out, so that one upsert can
-- report both the grant and the new total (RETURNING sees only the new row).
-- No foreign key to api_keys: rows are short-lived and pruned by window_end.

CREATE TABLE limit_counters (
    key_id        text NOT NULL,
    selector      text NOT NULL,
    unit          text NOT NULL CHECK (unit IN ('requests', 'millicredits')),
    window_start  timestamptz NOT NULL,
    window_end    timestamptz NOT NULL,
    used          bigint NOT NULL CHECK (used >= 0),
    granted       bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (key_id, selector, unit, window_start)
);
CREATE INDEX limit_counters_window_end ON limit_counters (window_end);
