-- An audit event whose text fields held bytes PostgreSQL cannot store in text (NUL, invalid UTF-8), as a
-- hostile path can, is stored with each such byte written as %XX and sanitized set, so the row is kept
-- (and the other rows of its batch with it) and a reader knows it was altered (see internal/audit).
ALTER TABLE audit_events ADD COLUMN sanitized boolean NOT NULL DEFAULT false;
