-- 006_vectors: embeddings of actions, for the optional semantic tier of hint.Build.
--
-- One vector per action, computed by one model (model) from the action as it was at
-- version (its updated_at then). A vector is used only while the action keeps that
-- updated_at, which the store changes exactly when the action's content changes: a re-sync
-- that leaves an action alone keeps its vector, one that changes it makes the vector stale
-- until it is computed again. Vectors are little-endian float32s; no extension is needed,
-- similarity is computed in the client.
--
-- vector_version holds one row (id is always true), incremented by every write of vectors,
-- so that processes can keep decoded vectors in memory and tell when they are stale.

CREATE TABLE action_vectors (
    action  text COLLATE "C" PRIMARY KEY REFERENCES actions (slug) ON DELETE CASCADE,
    model   text NOT NULL,
    version timestamptz NOT NULL,
    dims    integer NOT NULL CHECK (dims > 0),
    vector  bytea NOT NULL CHECK (length(vector) = 4 * dims)
);
CREATE INDEX action_vectors_model_idx ON action_vectors (model);

CREATE TABLE vector_version (
    id      boolean PRIMARY KEY DEFAULT true CHECK (id),
    version bigint NOT NULL
);
INSERT INTO vector_version (id, version) VALUES (true, 1);
