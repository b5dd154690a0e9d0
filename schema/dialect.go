package schema

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrUnknownDialect reports a [Dialect] that [Function.Render] does not know.
var ErrUnknownDialect = errors.New("schema: unknown dialect")

// Dialect names a model API's tool-definition format, for [Function.Render] and [Render].
type Dialect string

// Dialects. The strict ones send OpenAI's strict variant where the schema allows it and
// fall back to non-strict per function otherwise (see [Function.StrictReason]).
const (
	DialectOpenAI                Dialect = "openai"                  // Chat Completions, [Function.OpenAI](false)
	DialectOpenAIStrict          Dialect = "openai_strict"           // Chat Completions, [Function.OpenAI](true)
	DialectOpenAIResponses       Dialect = "openai_responses"        // Responses, [Function.OpenAIResponses](false)
	DialectOpenAIResponsesStrict Dialect = "openai_responses_strict" // Responses, [Function.OpenAIResponses](true)
	DialectAnthropic             Dialect = "anthropic"               // Messages, [Function.Anthropic]
	DialectGemini                Dialect = "gemini"                  // a FunctionDeclaration, [Function.Gemini]
)

// Render renders the function in dialect d. It fails with an error wrapping
// [ErrUnknownDialect] for a dialect not listed above, or with the error of the dialect's
// own method.
func (f Function) Render(d Dialect) (json.RawMessage, error) {
	switch d {
	case DialectOpenAI, DialectOpenAIStrict:
		return f.OpenAI(d == DialectOpenAIStrict)
	case DialectOpenAIResponses, DialectOpenAIResponsesStrict:
		return f.OpenAIResponses(d == DialectOpenAIResponsesStrict)
	case DialectAnthropic:
		return f.Anthropic()
	case DialectGemini:
		return f.Gemini()
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownDialect, truncate(string(d), 40))
}

// Render renders every function in dialect d, in order. An unknown dialect fails even when
// fns is empty; otherwise the first failure is returned, naming the function's slug.
func Render(fns []Function, d Dialect) ([]json.RawMessage, error) {
	switch d {
	case DialectOpenAI, DialectOpenAIStrict, DialectOpenAIResponses, DialectOpenAIResponsesStrict, DialectAnthropic, DialectGemini:
	default:
		return nil, fmt.Errorf("%w: %q", ErrUnknownDialect, truncate(string(d), 40))
	}
	out := make([]json.RawMessage, 0, len(fns))
	for _, f := range fns {
		b, err := f.Render(d)
		if err != nil {
			return nil, fmt.Errorf("schema: render %s: %w", truncate(f.Slug, 80), err)
		}
		out = append(out, b)
	}
	return out, nil
}
