-- 002_catalog_version: a counter of catalogue changes, so that every process sharing the
-- database can tell whether the action metadata it keeps decoded in memory is still current.
--
-- The table holds exactly one row (id is always true). Every transaction that changes
-- apps, actions or action metadata (Apply when it writes or deletes anything, Reclassify)
-- increments version before it commits, so the new version and the new rows become visible
-- together.

CREATE TABLE catalog_version (
    id      boolean PRIMARY KEY DEFAULT true CHECK (id),
    version bigint NOT NULL
);
INSERT INTO catalog_version (id, version) VALUES (true, 1);
