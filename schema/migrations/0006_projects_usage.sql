-- Projects get a description and an archive time; audit events record what each request charged, so
-- usage (requests and charged credits by project, day and operation) is one query over the audit trail.
ALTER TABLE projects ADD COLUMN description text NOT NULL DEFAULT '';
ALTER TABLE projects ADD COLUMN archived_at timestamptz;
ALTER TABLE audit_events ADD COLUMN charged_millicredits bigint NOT NULL DEFAULT 0;
CREATE INDEX audit_events_usage ON audit_events (account_id, created_at);
