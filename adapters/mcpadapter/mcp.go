// Package mcpadapter offers toolhint's tools on a host's MCP server built with the official
// MCP Go SDK (github.com/modelcontextprotocol/go-sdk): either chosen functions run by an
// executor ([AddTools]), or the router's meta-tools that reach the whole catalogue
// ([AddRouter]). The host creates, runs and closes the *mcp.Server; this package only
// registers tools on it.
//
// Every call goes through the executor's pipeline (validation, permission checks, timeouts,
// truncation). Who a call is made for comes from the MCP request through Config.Scope: the
// host maps the session, its OAuth token info or its HTTP headers to an agent and a
// workspace, and each call runs with that scope.
package mcpadapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// ErrConfig reports an argument the adapter cannot work with.
var ErrConfig = errors.New("mcpadapter: invalid config")

// DefaultRouterTimeout bounds one meta-tool call (a batch_execute_tools call runs many
// actions) when Config.RouterTimeout is zero.
const DefaultRouterTimeout = 5 * time.Minute

// Config configures AddTools and AddRouter. It is copied; the functions it holds must be
// safe for concurrent use.
type Config struct {
	// Scope returns who a call is made for, from the request: req.Session (the MCP
	// session), req.Extra.TokenInfo (OAuth) or req.Extra.Header (HTTP). An error refuses the
	// call with an error result naming it. Optional: nil runs every call with the
	// executor's own scope. A scope that names an agent is refused (forbidden) unless the
	// executor was built with an Access (registry.AllowAll() to allow everything).
	Scope func(ctx context.Context, req *mcp.CallToolRequest) (executor.Scope, error)
	// RouterTimeout bounds one meta-tool call of AddRouter. Optional. Defaults to
	// DefaultRouterTimeout.
	RouterTimeout time.Duration
}

// AddTools registers fns on server as MCP tools, each run by ex (with the scope
// cfg.Scope gives): the tool's name is the function's model-safe name, its input schema the
// function's parameters, and for platform tools of ex's registry its annotations say
// whether it is read-only, idempotent or destructive. It fails with ErrConfig, registering
// nothing, when server or ex is nil or a function cannot be offered.
//
// A call's result is the executor result as the model reads it (Result.ForModel) in one
// text content, IsError when it failed, and the data as structured content when it is a
// JSON object.
func AddTools(server *mcp.Server, ex *executor.Executor, fns []schema.Function, cfg Config) error {
	if server == nil || ex == nil {
		return fmt.Errorf("%w: AddTools needs a server and an executor", ErrConfig)
	}
	tools := make([]*mcp.Tool, len(fns))
	for i, fn := range fns {
		t, err := tool(fn)
		if err != nil {
			return err
		}
		if reg := ex.Registry(); reg != nil {
			if spec, ok := reg.Get(fn.Slug); ok {
				t.Annotations = annotations(spec)
			}
		}
		tools[i] = t
	}
	for i, t := range tools {
		slug := fns[i].Slug
		server.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			e := ex
			if cfg.Scope != nil {
				s, err := cfg.Scope(ctx, req)
				if err != nil {
					return refused(err), nil
				}
				e = ex.WithScope(s)
			}
			return result(e.Execute(ctx, executor.Call{Name: slug, Arguments: req.Params.Arguments})), nil
		})
	}
	return nil
}

// scopeKey carries a call's scope from the MCP handler to the meta-tools.
type scopeKey struct{}

// AddRouter registers the router's meta-tools (search_tools, get_tool_schemas,
// execute_tool, batch_execute_tools, create_plan, and the connection tools when the router
// has a Connector) on server. The actions they reach run through inner,
// with the scope cfg.Scope gives; the meta-tools' own arguments are validated by an
// executor of the adapter's. It fails with ErrConfig, registering nothing, when server is
// nil or executor.NewRouter refuses inner and rc.
func AddRouter(server *mcp.Server, inner *executor.Executor, rc executor.RouterConfig, cfg Config) error {
	if server == nil {
		return fmt.Errorf("%w: AddRouter needs a server", ErrConfig)
	}
	base, err := executor.NewRouter(inner, rc)
	if err != nil {
		return fmt.Errorf("mcpadapter: %w", errors.Join(ErrConfig, err))
	}
	// One registry of meta-tools, whose Run builds the router for the call's scope (a
	// Router is a small value) and runs the tool of that name.
	reg := registry.New()
	specs := base.Tools()
	for _, spec := range specs {
		name := spec.Name
		spec.Run = func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			r := base
			if s, ok := ctx.Value(scopeKey{}).(executor.Scope); ok {
				if r, err = executor.NewRouter(inner.WithScope(s), rc); err != nil {
					return nil, err
				}
			}
			for _, t := range r.Tools() {
				if t.Name == name {
					return t.Run(ctx, args)
				}
			}
			return nil, fmt.Errorf("no meta-tool %s", name)
		}
		if err := reg.Register(spec); err != nil {
			return fmt.Errorf("mcpadapter: %w", errors.Join(ErrConfig, err))
		}
	}
	timeout := cfg.RouterTimeout
	if timeout <= 0 {
		timeout = DefaultRouterTimeout
	}
	outer, err := executor.New(executor.Config{Registry: reg, Timeout: timeout, MaxAttempts: 1})
	if err != nil {
		return fmt.Errorf("mcpadapter: %w", errors.Join(ErrConfig, err))
	}
	tools := make([]*mcp.Tool, len(specs))
	for i, spec := range specs {
		fn, ok := reg.Function(spec.Name)
		if !ok {
			return fmt.Errorf("%w: meta-tool %s not registered", ErrConfig, spec.Name)
		}
		t, err := tool(fn)
		if err != nil {
			return err
		}
		t.Annotations = annotations(spec)
		tools[i] = t
	}
	for i, t := range tools {
		name := specs[i].Name
		server.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if cfg.Scope != nil {
				s, err := cfg.Scope(ctx, req)
				if err != nil {
					return refused(err), nil
				}
				ctx = context.WithValue(ctx, scopeKey{}, s)
			}
			return result(outer.Execute(ctx, executor.Call{Name: name, Arguments: req.Params.Arguments})), nil
		})
	}
	return nil
}

// tool returns fn as an MCP tool; its input schema must be an object schema (the SDK
// panics on anything else, so it is checked here).
func tool(fn schema.Function) (*mcp.Tool, error) {
	params := fn.Parameters
	if len(bytes.TrimSpace(params)) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	var root struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(params, &root); err != nil || root.Type != "object" {
		return nil, fmt.Errorf("%w: function %q: parameters are not an object schema", ErrConfig, fn.Slug)
	}
	name := fn.Name
	if name == "" {
		name = schema.FunctionName(fn.Slug)
	}
	return &mcp.Tool{Name: name, Description: fn.Description, InputSchema: params}, nil
}

func annotations(spec registry.ToolSpec) *mcp.ToolAnnotations {
	destructive := spec.Destructive
	return &mcp.ToolAnnotations{ReadOnlyHint: spec.ReadOnly, IdempotentHint: spec.Idempotent, DestructiveHint: &destructive}
}

func result(r executor.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.ForModel()}}, IsError: !r.OK}
	if d := bytes.TrimSpace(r.Data); r.OK && len(d) > 0 && d[0] == '{' && json.Valid(d) {
		out.StructuredContent = json.RawMessage(d)
	}
	return out
}

func refused(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "error (forbidden): " + err.Error()}}, IsError: true}
}
