// Package schema owns the path from a Composio parameter JSON Schema to a function definition a
// model can call, and back from the model's arguments to a value that is safe to execute.
//
// It parses any JSON Schema Composio sends into a typed [Schema] tree that keeps every keyword
// and normalises the Pydantic-isms (nullable, draft-07 definitions, missing or invalid types,
// examples, allOf of objects); renders a [Function] for OpenAI (plain and strict, Chat
// Completions and Responses shapes), Anthropic and Gemini; maps action slugs to model-safe
// function names and back ([FunctionName], [Names]); hides runtime-context parameters the host
// fills itself ([ConvertOptions].Hidden); turns Go types into strict-ready schemas
// ([FromType], [Reflect]) and schemas into Go source ([GenerateGo]); and compiles schemas into
// validators ([Compile], [Compiler]) that coerce near-miss arguments ([Validator.Coerce]) and
// report every failing path ([ValidationError]).
//
// Schemas and arguments are untrusted input: every remote, file or unknown $ref is refused,
// size, depth and enum limits apply ([Limits]), and bad input yields an error wrapping one of
// the package's sentinels, never a panic.
//
// # Dialect notes
//
// OpenAI strict mode needs every object closed and every property required. [Convert] makes
// a strict variant when it can: optional properties become nullable, keywords strict mode
// does not accept (default, examples, most formats, minLength, …) move into the description,
// free-form objects (a map with no declared properties) become a string holding the object
// as JSON, which [Validator.Coerce] decodes back, and objects that declare properties but
// also allow others are closed to the declared ones. When a schema cannot be made strict,
// [Function.StrictReason] says why and [Function.OpenAI] falls back to non-strict for that
// function only. Gemini gets the OpenAPI 3.0 subset: $ref inlined (recursion cut at a depth
// limit), type arrays turned into nullable or anyOf, unsupported keywords dropped or moved
// into the description, number and boolean enums sent as string enums of their text, and
// free-form objects encoded as JSON strings as for strict mode. [Validator.Coerce], run with
// the validator of the original schema, turns arguments written against either variant back
// into what the original schema wants.
package schema
