// Package schema owns the path from a Composio parameter JSON Schema to a function definition a
// model can call, and back from the model's arguments to a value that is safe to execute.
//
// It parses any JSON Schema Composio sends into a typed [Schema] tree that keeps every keyword
// and normalises the Pydantic-isms (nullable, draft-07 definitions, missing or invalid types,
// examples, allOf of objects); reads back what catalogue copies of Composio's schemas lost
// ([Relax]); applies the host's own changes to any action's schema ([Overrides]); renders a
// [Function] for OpenAI (plain and strict, Chat Completions and Responses shapes), Anthropic
// and Gemini, by method or by name ([Dialect], [Function.Render], [Render]); maps action slugs to model-safe function names and back ([FunctionName],
// [Names]); hides runtime-context parameters the host fills itself ([ConvertOptions].Hidden);
// turns Go types into strict-ready schemas ([FromType], [Reflect]) and schemas into Go source
// ([GenerateGo]); and compiles schemas into validators ([Compile], [Compiler])
// that coerce near-miss arguments ([Validator.Coerce]) and report every failing path
// ([ValidationError]).
//
// Schemas and arguments are untrusted input: every remote, file or unknown $ref is refused,
// size, depth and enum limits apply to schemas and arguments alike ([Limits]), and bad input
// yields an error wrapping one of the package's sentinels, never a panic. [Convert] and
// [Compile] refuse exactly the same schemas: those the JSON Schema 2020-12 meta-schema
// refuses (minLength: -1, a pattern that does not compile, …), and reference cycles that
// never reach a value.
//
// # The one way to check a model's arguments
//
// Compile the action's schema once ([Compile], or [Compiler.Compile] where the same schemas
// come back on every call: it caches), then run [Validator.CoerceAndValidate] on each call's
// arguments: it repairs the near misses models make and checks the result in one pass,
// returning the arguments to run with. Both take their options as an optional last
// argument ([CompileOptions]: mode and overrides; [CoerceOptions]: filling defaults). The
// other entry points are its parts: [Validator.Validate] checks without repairing,
// [Validator.Coerce] repairs without checking, and [Validator.CheckLimits] is the size and
// depth check both run first. CompileWith, Compiler.CompileWith, Validator.CoerceWith,
// Validator.CoerceAndValidateWith and ConvertWith are deprecated spellings of the same
// calls. Package
// executor does all of this for the tools it runs.
//
// # The one way to make a tool definition
//
// [Convert] an action's slug, description and parameter schema (with [ConvertOptions] as an
// optional last argument: hidden parameters, mode, overrides) into a [Function], then
// render it for the model API in use: [Function.OpenAI], [Function.Anthropic],
// [Function.Gemini], or [Function.Render] with a [Dialect] when the API is chosen at run
// time. A host going from a hint to a model request does not call these one by one:
// registry.Resolver.HintTools converts and renders the hint's actions (access-checked) and
// the meta-tools the hint points at in one call.
//
// # Catalogue quirks and validation modes
//
// Composio builds its schemas from Pydantic models, where a field is required exactly when it
// has no default, and its server fills in every field left out. Copies of those schemas lose
// information: null defaults are dropped, fields whose default comes from a factory carry no
// default at all, and some sources infer "required" from the missing default. Taken
// literally, GMAIL_SEND_EMAIL requires an attachment its own description says to omit, and
// HUBSPOT_CREATE_CONTACT requires 110 properties. [Relax] reads the lost information back
// with a few general rules ([Rule]): a required property with a default, one that accepts
// null, one whose description says it may be left out or set to null or is set by the
// server, an object or array that accepts an empty value, and every property of an object
// whose required list is too long to be anything but inferred, becomes optional. A
// description that insists ("Required.", "must be provided", "at least one") wins over
// every rule. [Convert] renders the normalised schema, so a strict-mode definition offers
// null instead of forcing the model to invent a value, and [Function].Relaxed lists what
// changed.
//
// A [Validator] checks in one of three modes ([Mode]): [Lenient], the default, checks the
// normalised schema and accepts null for every optional property, which is what Composio's
// server accepts; [Strict] checks the schema as declared; [Off] checks only the argument
// limits. An executor picks the mode and the host's overrides per call with
// [Compiler.Compile] and [CompileOptions], which caches a validator per schema, mode and
// override.
//
// Validation costs time linear in the size of the arguments whatever the schema: each value
// is checked once against each schema node, the result of a shared ($ref) node being
// memoised per value, and failed anyOf branches are only explained once the arguments are
// known to be invalid. Arguments over [Limits].MaxArgBytes or nested deeper than MaxArgDepth
// are refused before they are decoded, with a [ValidationError] that also wraps
// [ErrTooLarge] or [ErrTooDeep]. Formats are annotations, not checked, as in JSON Schema
// 2020-12; a number written with an exponent that makes it infinite as a float64 (1e400) is
// not an integer.
//
// # Dialect notes
//
// OpenAI strict mode needs every object closed and every property required. [Convert] makes
// a strict variant when it can: optional properties become nullable, keywords strict mode
// does not accept (default, examples, most formats, minLength, …) move into the description,
// free-form objects (a map with no declared properties) become a string holding the object
// as JSON, which [Validator.Coerce] decodes back, and objects that declare properties but
// also allow others are closed to the declared ones. When a schema cannot be made strict,
// or breaks one of strict mode's documented limits (10 levels of nesting, 5,000 object
// properties, 1,000 enum values, 15,000 characters in an enum of more than 250 values,
// 120,000 characters of names and enum values in total), [Function.StrictReason] says which
// and [Function.OpenAI] falls back to non-strict for that function only. Gemini gets the
// OpenAPI 3.0 subset: $ref inlined (recursion cut at a depth limit), type arrays turned into
// nullable or anyOf, unsupported keywords dropped or moved into the description, number and
// boolean enums sent as string enums of their text, and free-form objects encoded as JSON
// strings as for strict mode. [Validator.Coerce], run with the validator of the original
// schema, turns arguments written against either variant back into what the original schema
// wants.
package schema
