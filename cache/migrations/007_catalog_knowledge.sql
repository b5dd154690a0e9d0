-- 007_catalog_knowledge: what the prompt analyser learns from the catalogue (its
-- vocabulary, abbreviations, app aliases and the words apps describe themselves with; see
-- cache.CatalogKnowledge), kept with the catalogue.
--
-- The table holds at most one row: the knowledge of the catalogue as it is, keyed by its
-- version, a digest of the apps' and actions' names and descriptions it was computed from.
-- Every catalogue write transaction that changes apps or actions (Apply, and so an import
-- or a sync) computes it from the catalogue it leaves and replaces the row before it
-- commits, so the knowledge and the catalogue become visible together. A catalogue written
-- before this migration has no row until its next such write; readers then use the
-- analyser's compiled table. body is the knowledge table, gzipped.

CREATE TABLE catalog_knowledge (
    version     text COLLATE "C" PRIMARY KEY,
    actions     integer NOT NULL CHECK (actions >= 0),
    apps        integer NOT NULL CHECK (apps >= 0),
    body        bytea NOT NULL,
    computed_at timestamptz NOT NULL
);
