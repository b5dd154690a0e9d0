// Package composiotest provides an in-process fake of Composio's REST API for tests: an
// httptest server that serves both the /api/v3 and /api/v3.1 prefixes, checks the
// x-api-key header, paginates with cursors, answers errors with the API's error
// envelope, serves a catalogue loaded from JSONL or built in Go, runs executions through
// host-supplied handlers, keeps auth configs, connected accounts and tool-router sessions
// in memory, injects faults (429 with retry-after, 5xx, slow, malformed or truncated JSON,
// dropped connections), and records every request it gets.
//
// A test starts one with NewServer(t, …) (closed when the test ends) or New(…) (closed
// by the caller), and talks to it with the *composio.Client from Server.Client or any
// client configured from Server.Config. A test host whose catalogue and connections are in a
// store seeds the fake from it in one call: NewServer(t, opt) with opt from FromStore(ctx,
// st, workspaces...), so the fake serves the same actions and the connected accounts the
// executor will name. That is the one way for a host test: load the catalogue once, with
// cache.ImportJSONL, and seed the fake from the store. LoadCatalog and ReadCatalog (with
// WithCatalog) serve a snapshot to a test that has no store, such as a sync's fake source.
package composiotest
