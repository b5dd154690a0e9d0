// Package registry owns the tools a model may be offered: the ToolSpec of every platform
// tool, the Registry that holds them, the access checks that decide whether an agent may call
// a platform tool or a Composio action, and the Resolver that turns a step's prompt into the
// function definitions of the actions it may call.
//
// A Registry is built once at start-up: Register checks each tool's name and compiles its
// parameter schema, so a tool that is in the registry can always be exported and validated.
// Typed builds a ToolSpec from an ordinary Go function, deriving the schema from the
// function's input type.
//
// Access answers "may this agent call this tool?" from agent permissions for platform
// tools, and from app assignments, the workspace connection and the workspace's enabled
// actions for Composio actions, and says why when the answer is no. AllowAll is the Access
// of a host that checked permissions at selection time and says so explicitly.
//
// Identity is the host's alone: IdentityKeys names the argument keys that say who a call
// is made for, and HostFilledParams the ones an action declares that the host fills (those
// of Composio's own toolkit); the resolver hides those from the definitions it renders.
//
// Resolver picks the actions for one step in three tiers: action slugs written in the prompt,
// an optional semantic search, then the catalogue ranked by package hint, capped at 30 by
// default.
//
// From a hint to the tools of a model request, the one call is Resolver.HintTools: the
// hint's actions the subject may call, access-checked and rendered in a model API's
// dialect (schema.Dialect), followed by the meta-tools the hint's text points at
// (hint.Result.MetaTools, held by ResolverConfig.Registry), so that the model is given
// every tool it is told of. Its parts: Resolver.HintFunctions (the same, as
// schema.Functions for a host converting to its SDK's types), Resolver.Functions and
// Resolver.Tools (for names chosen elsewhere), and schema.Convert with schema.Render for
// one action's definition. An optional ResolveObserver
// (ResolverConfig.Observer) sees each of these calls start and end, for metrics or tracing.
//
// Assembler builds the context an agent starts with (AssembleContext): its persona, the
// skills of the plugins assigned to it, its platform tools and its apps' actions (narrowed
// by a hint when one is given), each part with a token estimate counted from the text it
// sends (never below a stored estimate, in sums that saturate); under a budget plugins
// are dropped first, then actions, then platform tools, and listed.
//
// Package registry/platform has safe built-in platform tools (files under one root, an
// allow-listed command runner, an HTTP client that refuses private addresses) to register
// by choice.
package registry
