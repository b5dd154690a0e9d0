-- 005_usage: each workspace's record of use, which usage priors learn from.
--
-- One row per finished tool call. terms holds the analysed terms of the request that led
-- to the call, separated by spaces (a term is one word); never the request's text. The
-- store keeps each workspace within a retention window and a count of its newest rows.
-- Rows of the same time are ordered by id, the order they were recorded in.

CREATE TABLE usage_events (
    id           bigserial PRIMARY KEY,
    workspace_id text COLLATE "C" NOT NULL,
    agent_id     bigint NOT NULL CHECK (agent_id >= 0),
    app          text COLLATE "C" NOT NULL,
    action       text COLLATE "C" NOT NULL,
    ok           boolean NOT NULL,
    terms        text NOT NULL,
    at           timestamptz NOT NULL
);
CREATE INDEX usage_events_workspace_idx ON usage_events (workspace_id, at DESC, id DESC);
