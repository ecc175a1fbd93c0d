-- Issue 26: apps (internal/apps). An app is a folder of files in the files capability (purpose
-- "/apps/<slug>/", the name its path relative to the folder) plus this row, which carries the validated
-- manifest, the sharing mode and the directory's display fields. The slug is the app's address, unique
-- within the account.
CREATE TABLE apps (
    id          text PRIMARY KEY,
    account_id  text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    project_id  text REFERENCES projects (id),
    slug        text NOT NULL CHECK (slug ~ '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$'),
    sharing     text NOT NULL DEFAULT 'private' CHECK (sharing IN ('private', 'unlisted', 'public')),
    title       text NOT NULL DEFAULT '',
    description text NOT NULL DEFAULT '',
    tags        text[] NOT NULL DEFAULT '{}',
    manifest    jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (account_id, slug)
);
CREATE INDEX apps_scope ON apps (account_id, project_id, created_at DESC, id DESC);
CREATE INDEX apps_public ON apps (created_at DESC, id DESC) WHERE sharing = 'public';

-- appKV's per-viewer record store: keys prefixed record: are kept here, one value per app, viewer
-- (the viewer's account; the owner's own records under the owner's account) and key. They are never
-- public and go with their app.
CREATE TABLE app_records (
    app_id     text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    viewer_id  text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    key        text NOT NULL,
    value      jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, viewer_id, key)
);
