-- 004_plugins: marketplace plugins, their enablement per workspace and their assignment to
-- agents.
--
-- A plugin is global (workspace_id NULL) or belongs to one workspace. Skills and commands
-- are stored as the JSON the Go code writes; metadata is kept byte-exact (json, not jsonb).
--
-- The foreign key from agent_plugins to workspace_plugins is what makes "a plugin must be
-- enabled in the workspace before an agent there is given it" hold in the database itself,
-- whatever writes to it; disabling a plugin removes its assignments in that workspace.

CREATE TABLE plugins (
    slug           text COLLATE "C" PRIMARY KEY,
    name           text NOT NULL,
    version        text NOT NULL,
    description    text NOT NULL,
    author         text NOT NULL,
    source         text NOT NULL,
    workspace_id   text COLLATE "C",
    skills         json NOT NULL,
    commands       json NOT NULL,
    skills_count   integer NOT NULL,
    commands_count integer NOT NULL,
    token_estimate integer NOT NULL CHECK (token_estimate >= 0),
    metadata       json,
    search         text NOT NULL,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL
);
CREATE INDEX plugins_workspace_idx ON plugins (workspace_id, slug);

CREATE TABLE workspace_plugins (
    workspace_id text COLLATE "C" NOT NULL,
    plugin       text COLLATE "C" NOT NULL REFERENCES plugins (slug) ON DELETE CASCADE,
    enabled_by   text NOT NULL,
    enabled_at   timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, plugin)
);
CREATE INDEX workspace_plugins_plugin_idx ON workspace_plugins (plugin);

CREATE TABLE agent_plugins (
    agent_id     bigint NOT NULL,
    workspace_id text COLLATE "C" NOT NULL,
    plugin       text COLLATE "C" NOT NULL,
    priority     integer NOT NULL CHECK (priority >= 0),
    assigned_at  timestamptz NOT NULL,
    PRIMARY KEY (agent_id, plugin),
    UNIQUE (agent_id, priority),
    FOREIGN KEY (workspace_id, plugin) REFERENCES workspace_plugins (workspace_id, plugin) ON DELETE CASCADE
);
CREATE INDEX agent_plugins_enabled_idx ON agent_plugins (workspace_id, plugin);
