-- 001_init: the catalogue (apps, actions, action metadata), stats, sync jobs and the
-- permission data around them (agent app assignments, workspace connections, tool configs).
--
-- Slug columns use the "C" collation so that ORDER BY matches Go's byte-wise string order
-- whatever the database's default collation is. Nullable array and JSON columns keep the
-- difference between a nil and an empty Go slice. JSON the caller hands in (parameters,
-- responses, triggers, stats) is stored as json, not jsonb, because json keeps the input
-- byte-exact while jsonb reorders keys and rewrites whitespace.
--
-- search holds the lower-cased slug, display name and description (lower-cased by the Go
-- code, so text search folds case exactly as the memory store does, whatever the server's
-- locale); queries match it with LIKE and an escaped pattern.

CREATE TABLE apps (
    slug                          text COLLATE "C" PRIMARY KEY,
    display_name                  text NOT NULL,
    description                   text NOT NULL,
    logo                          text NOT NULL,
    categories                    text[],
    categories_lower              text[] NOT NULL DEFAULT '{}',
    auth_schemes                  text[],
    composio_managed_auth_schemes text[],
    no_auth                       boolean NOT NULL,
    action_count                  integer NOT NULL,
    trigger_count                 integer NOT NULL,
    status                        text NOT NULL,
    latest_version                text NOT NULL,
    triggers                      json,
    search                        text NOT NULL,
    content_hash                  bytea NOT NULL,
    updated_at                    timestamptz NOT NULL
);
CREATE INDEX apps_status_idx ON apps (status);
CREATE INDEX apps_categories_lower_idx ON apps USING gin (categories_lower);

CREATE TABLE actions (
    slug                 text COLLATE "C" PRIMARY KEY,
    app                  text COLLATE "C" NOT NULL REFERENCES apps (slug) ON DELETE CASCADE,
    display_name         text NOT NULL,
    display_name_derived boolean NOT NULL,
    description          text NOT NULL,
    parameters           json,
    response             json,
    tags                 text[],
    version              text NOT NULL,
    deprecated           boolean NOT NULL,
    no_auth              boolean NOT NULL,
    destructive          boolean,
    read_only            boolean,
    fidelity             text NOT NULL,
    source               text NOT NULL,
    search               text NOT NULL,
    content_hash         bytea NOT NULL,
    updated_at           timestamptz NOT NULL
);
-- One app's actions in slug order (AppActions, Actions with an app filter).
CREATE UNIQUE INDEX actions_app_slug_idx ON actions (app, slug);

CREATE TABLE action_meta (
    action       text COLLATE "C" PRIMARY KEY REFERENCES actions (slug) ON DELETE CASCADE,
    app          text COLLATE "C" NOT NULL,
    capabilities text[],
    keywords     text[],
    destructive  boolean NOT NULL,
    read_only    boolean NOT NULL,
    confidence   double precision NOT NULL,
    slug_terms   text[],
    name_terms   text[],
    desc_terms   text[],
    params       jsonb,
    -- The same metadata packed into one string (see postgres_pack.go), which ActionMeta
    -- reads: much cheaper to decode than the typed columns above, which are for SQL.
    packed       text NOT NULL
);
CREATE INDEX action_meta_app_idx ON action_meta (app, action);
CREATE INDEX action_meta_capabilities_idx ON action_meta USING gin (capabilities);
CREATE INDEX action_meta_keywords_idx ON action_meta USING gin (keywords);

CREATE TABLE stats (
    key        text COLLATE "C" PRIMARY KEY,
    value      json NOT NULL,
    updated_at timestamptz NOT NULL
);

CREATE TABLE sync_jobs (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    type            text NOT NULL,
    status          text NOT NULL,
    apps_synced     integer NOT NULL DEFAULT 0,
    actions_synced  integer NOT NULL DEFAULT 0,
    actions_deleted integer NOT NULL DEFAULT 0,
    started_at      timestamptz NOT NULL,
    finished_at     timestamptz,
    error           text NOT NULL DEFAULT ''
);
CREATE INDEX sync_jobs_started_idx ON sync_jobs (started_at DESC, id DESC);

-- Permission data refers to apps by slug without a foreign key: a sync that drops an app
-- from the catalogue must not silently delete what workspaces and agents configured.
CREATE TABLE agent_apps (
    agent_id   bigint NOT NULL,
    app        text COLLATE "C" NOT NULL,
    type       text NOT NULL,
    active     boolean NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (agent_id, app)
);

CREATE TABLE connections (
    workspace_id  text COLLATE "C" NOT NULL,
    app           text COLLATE "C" NOT NULL,
    status        text NOT NULL,
    connection_id text NOT NULL DEFAULT '',
    connected_at  timestamptz,
    updated_at    timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, app)
);
CREATE INDEX connections_status_idx ON connections (status, workspace_id, app);

CREATE TABLE tool_configs (
    workspace_id    text COLLATE "C" NOT NULL,
    app             text COLLATE "C" NOT NULL,
    enabled         boolean NOT NULL,
    enabled_actions text[],
    updated_at      timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, app)
);
