-- A hold keeps the reference it was made with, so holds left open by a process that died mid-call can be
-- found by kind (invoke/..., run/...) and released after their call must have ended.
ALTER TABLE credit_holds ADD COLUMN reference text;
CREATE INDEX credit_holds_stale ON credit_holds (created_at) WHERE status = 'held';
