// Package executor owns running tool calls: one entry point that routes each call to a
// platform tool or a Composio action and runs it safely, the meta-tools of router mode, and
// the loop model -> tools -> model: RunTurn for a chatbot's turn, RunStep for a recipe's
// step.
//
// Every call goes through the same pipeline, in this order:
//
//  1. the name is resolved; an unknown or hallucinated name becomes an error result that
//     names the closest real tools the agent may call;
//  2. access is checked: the agent's permission (Config.Access; an executor for an agent
//     needs one, registry.AllowAll when the host trusts its own selection) and the
//     intent's capabilities. A refused call says why and never shows the tool's schema;
//  3. the arguments are read: their size and depth are checked before anything decodes
//     them (Config.MaxArgBytes; "too large" or "too deep" is said so), then that they are
//     one JSON object. Runtime-context
//     keys of agent frameworks (threadId, run_manager, …) and identity keys (user_id,
//     entity_id, connected_account_id, workspace_id, agent_id) are stripped unless the
//     tool's schema declares them as its own data: identity is the host's alone, sent
//     beside the arguments, and Composio's own actions get the scope's user in place of
//     the model's;
//  4. the arguments are coerced and validated against the tool's schema, in the mode the
//     host chose (Config.Validation): Lenient by default, which reads the schema after the
//     host's overrides (Config.Overrides) and the normaliser of catalogue quirks
//     (schema.Relax), so GMAIL_SEND_EMAIL runs without the attachment its catalogue copy
//     calls required while saying "omit or set to null"; Strict reads the schema as
//     declared; Off only coerces. A failure becomes a result the model can read and
//     correct, not a Go error, and names as required only what the mode requires.
//     Coercion repairs only
//     values the model wrote: no schema default is sent unless the host opts in
//     (FillDefaults), and never to an action that updates stored data. An argument the
//     schema does not declare is sent on an open schema, with a notice for the model
//     naming the closest declared parameter, and refused on a closed one;
//  5. a destructive call is run only when the host's confirmation function allows it;
//  6. before-hooks may rewrite the arguments or refuse the call;
//  7. the tool runs, with a timeout per attempt and a deadline for the whole call. Only
//     read-only or idempotent tools are retried, on transient failures (timeouts only when
//     the tool opts in), honouring the wait a service asks for; the executor's retries are
//     the call's only ones (a Remote that can send once, as *composio.Client can, is asked
//     to). A panic is an error result naming the tool;
//  8. after-hooks see the result;
//  9. the result is truncated, keeping it valid JSON and its structure (10,000 characters
//     by default).
//
// A failed call's Result has a kind to branch on (rate_limited, transient, auth_required,
// not_found, invalid_arguments, forbidden, timeout, tool_error, …), a sentence for the
// model without request paths or ids (a URL is said as "the URL"), at most a few KB
// whatever the input (a model-written key, name or id is quoted short, see
// schema.Excerpt, and an overlong text loses its middle, never what to do), and Err,
// the Go error behind it (a *composio.APIError, a context error, a
// *schema.ValidationError, …); ForUI and the log record keep the whole reason. Host callbacks (Observer, hooks, the confirmation function,
// BatchOptions.OnResult) that panic are recovered and logged. Tools, hooks and the
// confirmation function find the call's scope with ScopeFrom(ctx).
//
// ExecuteBatch runs calls that share a step in parallel, bounded by the executor's
// concurrency limit, and steps in ascending order; results come back in the order of the
// calls. Background starts a batch and returns at once; the executor owns the run until it
// finishes, and Close cancels and waits for every run it owns. WithScope derives an
// executor for another agent that shares the resources but closes on its own.
//
// RunTurn is a chatbot host's whole turn in one call, over any LLM (an SDK's client behind
// the one-method LLM interface): it builds the hint for the user's message, offers the
// model the hint's actions the scope may call and the meta-tools the hint points at
// (search_tools when the executor's registry holds the Router's tools and the scope may
// call it, and only then does the hint name it), runs the model's calls and gives it the
// results until it answers or a bound (Turn.MaxTurns, Turn.Timeout) is hit. RunStep is the
// same engine for a recipe step, with the resolver's actions, and takes the same decision
// on search_tools.
//
// Composio actions run through Config.Remote (required when the catalogue holds any). Its one method uses only standard-library
// types, so a *composio.Client is a Remote as it is; the executor reads what it needs of
// the client's errors through small interfaces (see Remote).
//
// A UsageRecorder is an Observer that records each finished Composio action call in its
// workspace's record of use (package cache), with the terms of the prompt the host put in
// the context (WithPrompt; RunTurn and RunStep do it), for hint's usage priors. It queues on the
// call path and writes in batches from a goroutine of its own; Close flushes it.
//
// Results can be rendered for the model (Result.ForModel), for a user interface
// (Result.ForUI) or as a standard envelope (Result.Envelope).
package executor
