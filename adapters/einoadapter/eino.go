// Package einoadapter offers toolhint's tools to CloudWeGo Eino (github.com/cloudwego/eino)
// as tool.InvokableTool values, so that an Eino ToolsNode, ReAct agent or ChatModel runs
// them through a toolhint executor without glue code of its own.
//
// [Tools] wraps schema.Function values (from a resolver, a registry or schema.Convert);
// [HintTools] goes from a hint (chatbot mode) to the tools in one call, through a
// registry.Resolver that checks what the agent may call and hides the identity keys. Bind
// the tools' Info to the chat model and give the tools themselves to compose.NewToolNode.
//
// Every call goes through the executor's pipeline (validation, permission checks, timeouts,
// truncation) with the executor's scope: give each request an executor for its agent
// (executor.WithScope). A failed call is not a Go error: InvokableRun returns the failure
// as the model reads it (executor.Result.ForModel), so the graph goes on and the model can
// correct itself, as it does with a tool message.
package einoadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	einoschema "github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adapterwire"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// ErrConfig reports an argument the adapter cannot work with.
var ErrConfig = errors.New("einoadapter: invalid config")

// Tool is one function as an Eino tool.InvokableTool, run by an executor. It is safe for
// concurrent use.
type Tool struct {
	ex     *executor.Executor
	fn     schema.Function
	params *jsonschema.Schema
}

var _ tool.InvokableTool = (*Tool)(nil)

// NewTool returns fn as an Eino tool run by ex. It fails with ErrConfig when ex is nil or
// fn's parameters are not a JSON Schema object.
func NewTool(ex *executor.Executor, fn schema.Function) (*Tool, error) {
	if ex == nil {
		return nil, fmt.Errorf("%w: nil executor", ErrConfig)
	}
	params := &jsonschema.Schema{}
	if err := json.Unmarshal(adapterwire.Arguments(fn.Parameters), params); err != nil {
		return nil, fmt.Errorf("%w: function %q: parameters: %w", ErrConfig, fn.Slug, err)
	}
	if params.Type == "" {
		params.Type = "object"
	}
	return &Tool{ex: ex, fn: fn, params: params}, nil
}

// Tools returns fns as Eino tools run by ex, in order, typed for
// compose.ToolsNodeConfig.Tools. It fails as NewTool does, returning no tools.
func Tools(ex *executor.Executor, fns []schema.Function) ([]tool.BaseTool, error) {
	return adapterwire.Map(fns, adapterwire.Bind[tool.BaseTool](ex, NewTool))
}

// HintTools goes from a hint to Eino tools in one call: the actions of h that sub may call,
// access-checked and rendered by r (registry.Resolver.Functions), each run by ex, which
// should have sub's scope. The Resolution says which actions were kept and why any was
// left out. It fails with ErrConfig for a nil resolver or executor.
func HintTools(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result, ex *executor.Executor) ([]tool.BaseTool, registry.Resolution, error) {
	return adapterwire.HintMap(ctx, r, sub, h, ErrConfig, adapterwire.Bind[tool.BaseTool](ex, NewTool))
}

// Infos returns the Info of each tool, for ToolCallingChatModel.WithTools or
// ChatModel.BindTools. It fails when a tool's Info does.
func Infos(ctx context.Context, tools []tool.BaseTool) ([]*einoschema.ToolInfo, error) {
	out := make([]*einoschema.ToolInfo, len(tools))
	for i, t := range tools {
		info, err := t.Info(ctx)
		if err != nil {
			return nil, err
		}
		out[i] = info
	}
	return out, nil
}

// Info describes the tool to the model: the function's model-safe name, its description
// and its parameter schema.
func (t *Tool) Info(context.Context) (*einoschema.ToolInfo, error) {
	return &einoschema.ToolInfo{Name: t.fn.Name, Desc: t.fn.Description, ParamsOneOf: einoschema.NewParamsOneOfByJSONSchema(t.params)}, nil
}

// InvokableRun runs the call through the executor and returns its result as the model
// reads it; a failed call's text starts with "error (<kind>)". The error is always nil, so
// that a failure reaches the model instead of ending the graph. The call's ID is the one
// Eino's ToolsNode gives (compose.GetToolCallID).
func (t *Tool) InvokableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (string, error) {
	call := executor.Call{ID: compose.GetToolCallID(ctx), Name: t.fn.Slug, Arguments: adapterwire.Arguments(json.RawMessage(argumentsInJSON))}
	return t.ex.Execute(ctx, call).ForModel(), nil
}
