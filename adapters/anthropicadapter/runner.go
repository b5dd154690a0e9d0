package anthropicadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adapterwire"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// RunnerTool is one function as a tool of the SDK's tool runner (an anthropic.BetaTool for
// client.Beta.Messages.NewToolRunner), run by an executor. It is safe for concurrent use.
type RunnerTool struct {
	ex     *executor.Executor
	fn     schema.Function
	schema anthropic.BetaToolInputSchemaParam
}

var _ anthropic.BetaTool = (*RunnerTool)(nil)

// ResultError is the error a RunnerTool's Execute returns for a failed call, so that the
// tool runner sends the tool_result with is_error set. Its text is the failure as the model
// reads it (executor.Result.ForModel), which the runner prefixes with "Error: ".
type ResultError struct {
	Result executor.Result
}

func (e *ResultError) Error() string { return e.Result.ForModel() }

// NewRunnerTool returns fn as a tool runner's tool run by ex. Its input schema is the one
// Tool sends (never the strict variant: the runner's tools carry no strict flag). It fails
// with ErrConfig when ex is nil or Tool refuses fn.
func NewRunnerTool(ex *executor.Executor, fn schema.Function) (*RunnerTool, error) {
	if ex == nil {
		return nil, fmt.Errorf("%w: nil executor", ErrConfig)
	}
	t, err := Tool(fn, false)
	if err != nil {
		return nil, fmt.Errorf("%w: function %q: %w", ErrConfig, fn.Slug, errors.Unwrap(err))
	}
	in := t.OfTool.InputSchema
	return &RunnerTool{ex: ex, fn: fn, schema: anthropic.BetaToolInputSchemaParam{Properties: in.Properties, Required: in.Required, ExtraFields: in.ExtraFields}}, nil
}

// RunnerTools returns fns as tool runner tools run by ex, in order, typed for
// client.Beta.Messages.NewToolRunner. It fails as NewRunnerTool does, returning no tools.
func RunnerTools(ex *executor.Executor, fns []schema.Function) ([]anthropic.BetaTool, error) {
	return adapterwire.Map(fns, adapterwire.Bind[anthropic.BetaTool](ex, NewRunnerTool))
}

// HintRunnerTools goes from a hint to tool runner tools in one call: the actions of h that
// sub may call, access-checked and rendered by r (registry.Resolver.Functions), each run by
// ex, which should have sub's scope. The Resolution says which actions were kept and why any
// was left out. It fails with ErrConfig for a nil resolver or executor.
func HintRunnerTools(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result, ex *executor.Executor) ([]anthropic.BetaTool, registry.Resolution, error) {
	return adapterwire.HintMap(ctx, r, sub, h, ErrConfig, adapterwire.Bind[anthropic.BetaTool](ex, NewRunnerTool))
}

// Name returns the function's model-safe name.
func (t *RunnerTool) Name() string { return t.fn.Name }

// Description returns the function's description.
func (t *RunnerTool) Description() string { return t.fn.Description }

// InputSchema returns the function's parameter schema.
func (t *RunnerTool) InputSchema() anthropic.BetaToolInputSchemaParam { return t.schema }

// Execute runs the call through the executor. A call that succeeded gives one text block,
// the result as the model reads it; a failed call gives a *ResultError, which the runner
// turns into a tool_result with is_error set.
func (t *RunnerTool) Execute(ctx context.Context, input json.RawMessage) ([]anthropic.BetaToolResultBlockParamContentUnion, error) {
	r := t.ex.Execute(ctx, executor.Call{Name: t.fn.Slug, Arguments: adapterwire.Arguments(input)})
	if !r.OK {
		return nil, &ResultError{Result: r}
	}
	return []anthropic.BetaToolResultBlockParamContentUnion{{OfText: &anthropic.BetaTextBlockParam{Text: r.ForModel()}}}, nil
}
