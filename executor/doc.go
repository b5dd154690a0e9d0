// Package executor owns running tool calls: one entry point that routes each call to a
// platform tool or a Composio action and runs it safely, the meta-tools of router mode, and
// the step runner that loops model -> tools -> model for recipe executors.
//
// Every call goes through the same pipeline, in this order:
//
//  1. the name is resolved; an unknown or hallucinated name becomes an error result that
//     names the closest real tools;
//  2. runtime-context keys (threadId, resourceId, memory, …) are stripped from the arguments
//     unless the tool's schema declares them;
//  3. the arguments are coerced and validated against the tool's schema; a failure becomes a
//     result the model can read and correct, not a Go error. Coercion repairs only values
//     the model wrote: no schema default is sent unless the host opts in (FillDefaults),
//     and never to an action that updates stored data. An argument the schema does not
//     declare is sent on an open schema, with a notice for the model naming the closest
//     declared parameter, and refused on a closed one;
//  4. permission and capability checks run again (an app the agent may not use is refused; a
//     destructive action is refused unless the host's confirmation hook allows it);
//  5. before-hooks may rewrite the arguments;
//  6. the tool runs, with a timeout, retries for read-only or idempotent tools only, and a
//     recovered panic reported as an error result naming the tool;
//  7. after-hooks see the result;
//  8. the result is truncated, keeping it valid JSON and its structure (10,000 characters by
//     default).
//
// ExecuteBatch runs calls that share a step in parallel, bounded by the executor's
// concurrency limit, and steps in ascending order; results come back in the order of the
// calls. Background starts a batch and returns at once; the executor owns the run until it
// finishes, and Close cancels and waits for every run it owns.
//
// Composio actions run through Config.Remote. Its one method uses only standard-library
// types, so a *composio.Client is a Remote as it is; a transient platform failure (429,
// 5xx: the client's errors report it with a Temporary method) is retried for read-only or
// idempotent actions, and a tool that ran and failed is an error result for the model.
//
// Results can be rendered for the model (Result.ForModel), for a user interface
// (Result.ForUI) or as a standard envelope (Result.Envelope).
package executor
