// Package toolhint puts Composio's catalogue of apps and actions in front of a language
// model without drowning it, and runs the tools the model picks, in-process.
//
// This root package holds no code; it is the map of the module:
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
package toolhint
