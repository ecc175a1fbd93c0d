-- Issue 27: skills (internal/skills). A skill is a folder in the files capability (purpose
-- "/skills/<name>/": SKILL.md, references/*.md and resource files, each file's name its path in the
-- folder) plus this row, which carries the validated frontmatter. The name is the skill's address,
-- unique within the account. A public skill waits for review (svcd skills review) before the directory
-- lists it; a private one has no review state. An installed copy records the skill it was copied from.
CREATE TABLE skills (
    account_id        text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name              text NOT NULL CHECK (name ~ '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$'),
    description       text NOT NULL,
    version           double precision NOT NULL DEFAULT 1,
    visibility        text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'public')),
    review_status     text CHECK (review_status IN ('pending_review', 'approved', 'refused')),
    review_reason     text NOT NULL DEFAULT '',
    reviewed_at       timestamptz,
    tags              text[] NOT NULL DEFAULT '{}',
    emoji             text NOT NULL DEFAULT '',
    frontmatter       jsonb NOT NULL,
    source_account_id text,
    source_name       text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, name),
    CHECK ((visibility = 'public') = (review_status IS NOT NULL)),
    CHECK ((source_account_id IS NULL) = (source_name IS NULL))
);
CREATE INDEX skills_approved ON skills (created_at DESC, account_id, name) WHERE review_status = 'approved';
CREATE INDEX skills_pending ON skills (created_at) WHERE review_status = 'pending_review';
