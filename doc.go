// Package toolhint puts Composio's catalogue of apps and actions in front of a language
// model without drowning it, and runs the tools the model picks, in-process.
//
// This root package is the map of the module. Its one type, [Telemetry], is the one place
// to give every component the same logger and observer. The packages:
//
//   - [github.com/toolhint/toolhint/cache]: the local catalogue (apps, actions, action
//     metadata, stats, sync jobs, agent assignments, workspace connections and enabled
//     actions), the capability taxonomy and classifier, the in-memory and PostgreSQL stores,
//     JSONL snapshots and the sync from a remote source. Beside it,
//     [github.com/toolhint/toolhint/cache/cachetest] is the conformance suite every store
//     passes, and [github.com/toolhint/toolhint/cache/composiosource] makes a
//     *composio.Client the sync's source.
//   - [github.com/toolhint/toolhint/schema]: Composio JSON Schemas in, function definitions
//     for OpenAI, Anthropic and Gemini out; Go types to schemas; argument coercion and
//     validation.
//   - [github.com/toolhint/toolhint/composio]: a client for Composio's REST API v3, with
//     [github.com/toolhint/toolhint/composio/composiotest], an httptest fake of it.
//   - [github.com/toolhint/toolhint/hint]: hint.Build turns a prompt and an agent into a
//     short system message naming the few actions that fit;
//     [github.com/toolhint/toolhint/hint/hinteval] measures selection on labelled prompts.
//   - [github.com/toolhint/toolhint/registry]: platform tools, access checks, and the
//     resolver from a step's prompt to the function definitions it may call.
//   - [github.com/toolhint/toolhint/executor]: one entry point for running tool calls
//     (validated, permission-checked, parallel by step, with timeouts, retries and
//     truncation), router meta-tools and a step runner;
//     [github.com/toolhint/toolhint/executor/executortest] has a scripted model for tests.
//
// Data flows one way: Composio -> composio.Client -> cache sync -> Store -> hint.Build ->
// registry resolver -> function definitions -> model -> executor.
//
// # The one way to do each thing
//
// Each job a host does has one entry point; the other exported calls near it are its
// parts, for a host that needs one step of it, and say so in their docs.
//
//   - Load a catalogue: cache.ImportAppsJSONL (apps, optional), then cache.ImportJSONL
//     (actions), into any store; cache.ImportJSONLWithOptions is the same with a progress
//     callback. Keep it current with cache.Sync. A test host then seeds the fake Composio
//     API from that store with composiotest.FromStore (the catalogue and the workspaces'
//     connected accounts); composiotest.LoadCatalog serves a snapshot without a store (a
//     sync's fake source). hinteval.LoadCatalog is deprecated: it was cache.ImportJSONL
//     into a new memory store, and the measurement tools now load that way.
//   - Embed the catalogue for the semantic tier: hint.EmbedCatalog, after each import or
//     sync (EmbedOptions.Progress reports as it goes).
//   - Say who a turn is for: one hint.Identity per turn, passed everywhere:
//     registry.Subject is that type, executor.Scope embeds it, and Identity.Request makes
//     the hint request, whose own AgentID, WorkspaceID and Apps are the same fields kept
//     for its fixed shape.
//   - Hint: hint.Build (hint.New(Config).Build for options).
//   - From a hint to the tools of a model request: registry.Resolver.HintTools (JSON in a
//     model API's dialect), or Resolver.HintFunctions for schema.Functions to convert to an
//     SDK's types; each adapter's HintTools/HintChatTools is that call in the SDK's types.
//     Resolver.Functions and Resolver.Tools do the same for names chosen elsewhere, and
//     schema.Convert with Function.OpenAI, Anthropic, Gemini or Render for one action.
//     registry.Assembler builds an agent's starting context (persona, plugins, tools)
//     under a token budget, a different job.
//   - A chatbot's turn (hint, tools, model, tool calls, until it answers):
//     executor.Executor.RunTurn; a recipe's step: RunStep.
//   - Run tool calls the host's own loop received: executor.Executor.Execute and
//     ExecuteBatch.
//   - Give every component a logger and an observer: fill one [Telemetry] and pass each
//     configuration through it (tel.Hint(hint.Config{…}), tel.Resolver, tel.Executor,
//     tel.Composio, tel.Sync, …). It fills the Logger and Observer fields a configuration
//     left nil; the per-component fields (hint.Config.Logger, executor.Config.Observer, …)
//     still configure one component alone and win when set.
//   - Check a model's arguments outside an executor: schema.Compile (or a
//     schema.Compiler's Compile, which caches, where the same schemas come back), then
//     Validator.CoerceAndValidate. Validate, Coerce and CheckLimits are its parts, and the
//     *With spellings are deprecated; schema's package doc says which is which.
//
// Names follow one rule across packages: a record's own key is Slug (cache.Action.Slug,
// cache.App.Slug, cache.Plugin.Slug, composio.Tool.Slug, schema.Function.Slug, which
// tool calls route back to), and a field that names an action some other value is about
// is Action (cache.ActionMeta.Action, cache.ActionVector.Action, cache.UsageEvent.Action,
// hint.Match.Action, executor.RemoteRequest.Action, schema.CompileOptions.Action,
// schema.GoType.Action, composiotest.ExecuteCall.Action). The Slug fields those three
// had are deprecated spellings, read when Action is empty. Constants named Kind* are
// executor's error kinds (executor.ErrorKind); other kinds take their type's prefix
// (registry.ToolAction, registry.PartPlugin), and registry's former KindPlatform,
// KindAction and KindUnknown are deprecated spellings of its Tool* constants.
package toolhint
