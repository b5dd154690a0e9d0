// Package langchaingoadapter offers toolhint's tools to LangChainGo
// (github.com/tmc/langchaingo) as tools.Tool values, so that its agents (the MRKL and
// conversational agents, the OpenAI functions agent) run them through a toolhint executor
// without glue code of their own.
//
// [Tools] wraps schema.Function values (from a resolver, a registry or schema.Convert);
// [HintTools] goes from a hint (chatbot mode) to the tools in one call, through a
// registry.Resolver that checks what the agent may call and hides the identity keys.
//
// A LangChainGo tool takes one string. These tools take a JSON object of arguments, and
// their Description ends with the function's parameter schema so that the model writes
// that object; [Tool.Parameters] gives the schema alone, for a host that declares the
// tools to a model through llms.WithTools.
//
// Every call goes through the executor's pipeline (validation, permission checks, timeouts,
// truncation) with the executor's scope: give each request an executor for its agent
// (executor.WithScope). A failed call is not a Go error: Call returns the failure as the
// model reads it (executor.Result.ForModel), because an agent's executor stops at a tool's
// error while the model could have corrected its arguments.
package langchaingoadapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tmc/langchaingo/tools"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adapterwire"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// ErrConfig reports an argument the adapter cannot work with.
var ErrConfig = errors.New("langchaingoadapter: invalid config")

// Tool is one function as a LangChainGo tools.Tool, run by an executor. It is safe for
// concurrent use.
type Tool struct {
	ex          *executor.Executor
	fn          schema.Function
	params      json.RawMessage
	description string
}

var _ tools.Tool = (*Tool)(nil)

// NewTool returns fn as a LangChainGo tool run by ex. It fails with ErrConfig when ex is nil
// or fn's parameters are not a JSON object.
func NewTool(ex *executor.Executor, fn schema.Function) (*Tool, error) {
	if ex == nil {
		return nil, fmt.Errorf("%w: nil executor", ErrConfig)
	}
	// One pass over the parameters: compacting checks that they are JSON, and a compact
	// JSON object starts with '{'.
	var compact bytes.Buffer
	if err := json.Compact(&compact, adapterwire.Arguments(fn.Parameters)); err != nil {
		return nil, fmt.Errorf("%w: function %q: parameters: %w", ErrConfig, fn.Slug, err)
	}
	if compact.Bytes()[0] != '{' {
		return nil, fmt.Errorf("%w: function %q: parameters: not a JSON object", ErrConfig, fn.Slug)
	}
	description := fn.Description
	if description != "" {
		description += "\n"
	}
	description += "Input: a JSON object matching this JSON Schema: " + compact.String()
	return &Tool{ex: ex, fn: fn, params: compact.Bytes(), description: description}, nil
}

// Tools returns fns as LangChainGo tools run by ex, in order, typed for the agents'
// constructors (agents.NewOneShotAgent, agents.NewConversationalAgent,
// agents.NewOpenAIFunctionsAgent). It fails as NewTool does, returning no tools.
func Tools(ex *executor.Executor, fns []schema.Function) ([]tools.Tool, error) {
	return adapterwire.Map(fns, adapterwire.Bind[tools.Tool](ex, NewTool))
}

// HintTools goes from a hint to LangChainGo tools in one call: the actions of h that sub may
// call, access-checked and rendered by r (registry.Resolver.Functions), each run by ex,
// which should have sub's scope. The Resolution says which actions were kept and why any
// was left out. It fails with ErrConfig for a nil resolver or executor.
func HintTools(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result, ex *executor.Executor) ([]tools.Tool, registry.Resolution, error) {
	return adapterwire.HintMap(ctx, r, sub, h, ErrConfig, adapterwire.Bind[tools.Tool](ex, NewTool))
}

// Name returns the function's model-safe name.
func (t *Tool) Name() string { return t.fn.Name }

// Description returns the function's description followed by a line giving the input: a
// JSON object matching the function's parameter schema, which it quotes.
func (t *Tool) Description() string { return t.description }

// Parameters returns the function's parameter schema, compacted; the caller must not
// modify it.
func (t *Tool) Parameters() json.RawMessage { return t.params }

// Call runs input, the arguments as a JSON object, through the executor and returns the
// result as the model reads it; a failed call's text starts with "error (<kind>)" and says
// how to fix the arguments. The error is always nil, so that a failure reaches the model
// instead of ending the agent's run.
func (t *Tool) Call(ctx context.Context, input string) (string, error) {
	call := executor.Call{Name: t.fn.Slug, Arguments: adapterwire.Arguments(json.RawMessage(input))}
	return t.ex.Execute(ctx, call).ForModel(), nil
}
