// Package cache holds the local copy of Composio's catalogue and everything stored about it:
// apps, actions, action metadata for capability matching, stats, sync jobs, agent app
// assignments, workspace connections and enabled actions.
//
// Two stores implement [Store] with the same behaviour: [Memory] (NewMemory), for tests and
// small programs, and [Postgres] (OpenPostgres or NewPostgres), for catalogues shared by
// several processes. Both return the same sentinel errors ([ErrNotFound], [ErrConflict],
// [ErrInvalid], [ErrTransition]) for the same cases; the conformance suite in package
// cachetest checks it.
//
// Set-up code a host runs on every start is idempotent: [EnsureAssignment] and
// [EnsureConnection] bring an agent's assignment and a workspace's connection to the state
// wanted and leave them alone once they are in it; adding a connection that is there in
// status added, or setting a connection to the status it is in, is not an error either.
// [ImportJSONL], [ExportJSONL], [Sync] and [RefreshConnections] ask only for the methods
// they call ([ImportStore], [ActionLister], [SyncStore], [RefreshStore]), so a host's own
// store need not be a Store.
//
// Every write of an action runs a [Classifier], which derives the action's capabilities,
// keywords and destructive flag from its slug, name, description and tags using the
// capability [Taxonomy]. Hosts may plug in their own classifier and re-classify a store.
//
// Both also implement [PluginStore]: marketplace plugins (skills and commands with a token
// estimate), enabled per workspace, and assigned to agents only where enabled
// ([ErrPluginNotEnabled] otherwise); cachetest.RunPlugins is its conformance suite.
//
// Both also implement [VectorStore]: one embedding per action, of the model that computed
// it, kept at unit length (PostgreSQL stores plain bytea; no extension is needed) and
// returned only while the action keeps the version (UpdatedAt) it was computed from, so
// that a sync that changes an action makes its vector stale. Package hint computes and
// reads them for its optional semantic tier (hint.EmbedCatalog).
//
// Both also implement [UsageStore]: each workspace's record of use (finished tool calls
// with the analysed terms of the requests behind them, never the requests), kept within a
// retention window and a per-workspace cap ([UsageLimits]) and purged on demand; hint's
// usage priors learn from it. cachetest.RunUsage is its conformance suite.
//
// Both also implement [KnowledgeStore]: the knowledge the prompt analyser learns from the
// catalogue (its vocabulary, abbreviations, app aliases and the words apps describe
// themselves with; [CatalogKnowledge]), computed by [ComputeCatalogKnowledge]'s statistics
// whenever a write changes apps or actions (an import, a sync, an Apply) and versioned by a
// digest of what it was made from, so that an identical re-import keeps the version. Memory
// computes it from a catalogue snapshot when it is first asked for; PostgreSQL computes it in
// the write's transaction and keeps it in one row (migration 007), so it is never out of
// step with the catalogue. Package hint reads it, falling back to its compiled table.
//
// Both stores refuse the same input: text PostgreSQL cannot hold (a NUL byte, escaped or
// not, or bytes that are not UTF-8) is ErrInvalid anywhere in a row, schemas included, and
// in identifiers and query strings.
//
// A [Postgres] keeps to its callers' contexts whatever the server does: its connections
// come from its own dialer (connect timeout, TCP keep-alives), and a call whose context
// ends closes its connection rather than wait for a frozen or unreachable server to
// answer. Its pool is bounded ([PostgresOptions].MaxOpenConns, 4 × GOMAXPROCS by default);
// [NewPostgres] runs on the caller's own pool instead. Opening reads the schema's
// migration version first and needs CREATE only when a migration is due; [Migrate] and
// SkipMigrations let a deploy step migrate and the application run as a role with
// SELECT, INSERT, UPDATE and DELETE only. A missing privilege is [ErrPermission].
//
// Loading a catalogue has one way: [ImportJSONL] (actions) after [ImportAppsJSONL] (apps,
// optional), into any store; [ImportJSONLWithOptions] is the same with a progress
// callback. The loaders elsewhere are its parts or its consumers: composiotest.FromStore
// seeds the fake API from a store so loaded, and the deprecated hinteval.LoadCatalog is
// ImportJSONL into a new memory store. [ExportJSONL] writes the same format. Imports are all-or-nothing
// and streamed in bounded chunks: into PostgreSQL one transaction takes them as they are
// read.
//
// [Sync] keeps a store in step with a remote catalogue, a [Source]: a full, incremental or
// parameter-backfill run under the sync lock, retrying transient source errors, refusing
// to delete too much, and recording a sync job. [RefreshConnections] moves pending
// workspace connections on from the connected accounts an [AccountSource] reports. This
// package does not import the Composio client; package composiosource joins the two:
// composiosource.New(client) is both a Source and an AccountSource over a *composio.Client.
package cache
