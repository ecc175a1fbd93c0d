-- App script runs executed inline (issue 26's benchmark): a run whose script returns before its first
-- platform call is executed by the API request that started it and recorded finished in one insert,
-- without workflow appscript/<id> (it has no effect outside its result to make exactly-once). Runs that
-- make platform calls, or outlast the inline budget, still run durably in their workflow.
ALTER TABLE app_script_runs ADD COLUMN inline boolean NOT NULL DEFAULT false;
