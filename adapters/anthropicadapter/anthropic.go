// Package anthropicadapter connects toolhint to the official anthropic-sdk-go SDK, so that a
// host passes toolhint's tools to the Messages API and the model's tool_use blocks to the
// executor without conversion code of its own.
//
// For a host that drives its own loop: [Tools] turns schema.Function values into the SDK's
// tool params; [Calls] turns a response's tool_use blocks into executor.Call values;
// [ToolResults] turns executor results into the one user message that answers them all (the
// API wants every tool_result of a turn in a single user turn). [HintTools] goes from a
// hint (chatbot mode) to the request's tools in one call, through a registry.Resolver that
// checks what the agent may call and hides the identity keys.
//
// For the SDK's tool runner (client.Beta.Messages.NewToolRunner), [RunnerTools] and
// [HintRunnerTools] return anthropic.BetaTool values whose Execute runs the call through the
// executor; the runner then loops model → tools → model itself.
//
// For executor.RunStep, [New] returns an executor.LLM over the SDK's client, with tool choice,
// parallel tool use and a hook that sees every response (and so its token usage).
package anthropicadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adapterwire"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// ErrConfig reports a constructor argument the adapter cannot work with.
var ErrConfig = errors.New("anthropicadapter: invalid config")

// DefaultMaxTokens is the output token limit of a turn when Config.MaxTokens is zero.
const DefaultMaxTokens = 4096

// Tool returns fn as a Messages API tool. With strict true, a function whose schema can be
// made strict is sent with its strict variant (every property required, nullable where it
// was optional, no additional properties) and "strict": true; any other goes out as it is.
func Tool(fn schema.Function, strict bool) (anthropic.ToolUnionParam, error) {
	raw, err := fn.Anthropic()
	if err != nil {
		return anthropic.ToolUnionParam{}, fmt.Errorf("anthropicadapter: function %q: %w", fn.Slug, err)
	}
	var r struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return anthropic.ToolUnionParam{}, fmt.Errorf("anthropicadapter: function %q: %w", fn.Slug, err)
	}
	isStrict := false
	if strict {
		if p, ok := fn.StrictParameters(); ok {
			r.InputSchema, isStrict = p, true
		}
	}
	m, err := adapterwire.Decode(r.InputSchema)
	if err != nil {
		return anthropic.ToolUnionParam{}, fmt.Errorf("anthropicadapter: function %q input schema: %w", fn.Slug, err)
	}
	var in anthropic.ToolInputSchemaParam
	in.Properties = m["properties"]
	if req, ok := m["required"].([]any); ok {
		for _, x := range req {
			if s, ok := x.(string); ok {
				in.Required = append(in.Required, s)
			}
		}
	}
	delete(m, "type")
	delete(m, "properties")
	delete(m, "required")
	if len(m) > 0 {
		in.ExtraFields = m
	}
	t := anthropic.ToolParam{Name: r.Name, InputSchema: in}
	if r.Description != "" {
		t.Description = anthropic.String(r.Description)
	}
	if isStrict {
		t.Strict = anthropic.Bool(true)
	}
	return anthropic.ToolUnionParam{OfTool: &t}, nil
}

// Tools returns fns as Messages API tools, in order (see Tool).
func Tools(fns []schema.Function, strict bool) ([]anthropic.ToolUnionParam, error) {
	return adapterwire.Map(fns, func(fn schema.Function) (anthropic.ToolUnionParam, error) { return Tool(fn, strict) })
}

// HintTools goes from a hint to Messages API tools in one call: the actions of h that sub
// may call, access-checked and rendered by r (registry.Resolver.Functions: the executor's
// validation mode and overrides, identity keys hidden), as Tools returns them. The
// Resolution says which actions were kept and why any was left out. It fails with ErrConfig
// for a nil resolver, and otherwise as Functions and Tools do.
func HintTools(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result, strict bool) ([]anthropic.ToolUnionParam, registry.Resolution, error) {
	return adapterwire.HintMap(ctx, r, sub, h, ErrConfig, func(fn schema.Function) (anthropic.ToolUnionParam, error) { return Tool(fn, strict) })
}

// Calls returns the tool_use blocks of a response as executor calls, in order.
func Calls(msg *anthropic.Message) []executor.Call {
	if msg == nil {
		return nil
	}
	var out []executor.Call
	for _, b := range msg.Content {
		if b.Type != "tool_use" {
			continue
		}
		out = append(out, executor.Call{ID: b.ID, Name: b.Name, Arguments: adapterwire.Arguments(b.Input)})
	}
	return out
}

// ToolResults returns one user message holding a tool_result block per result, in order:
// the answer to every tool_use of an assistant turn, as the API wants it. A failed result
// is marked is_error. It returns a message with no content for no results.
func ToolResults(results []executor.Result) anthropic.MessageParam {
	blocks := make([]anthropic.ContentBlockParamUnion, len(results))
	for i, r := range results {
		blocks[i] = anthropic.NewToolResultBlock(r.CallID, r.ForModel(), !r.OK)
	}
	return anthropic.NewUserMessage(blocks...)
}

// MessageCreator is the part of the SDK's messages service the adapter calls;
// *anthropic.MessageService (&client.Messages) satisfies it.
type MessageCreator interface {
	New(ctx context.Context, params anthropic.MessageNewParams, opts ...option.RequestOption) (*anthropic.Message, error)
}

// Config configures New. It is copied by New.
type Config struct {
	// Model is the model to call, e.g. anthropic.ModelClaudeSonnet5_5. Required.
	Model anthropic.Model
	// MaxTokens bounds the output of one turn. Optional. Defaults to DefaultMaxTokens.
	MaxTokens int64
	// Strict sends strict tool definitions where the schema allows it (see Tool). Optional.
	// Defaults to false.
	Strict bool
	// DisableParallelToolUse asks the model for at most one tool_use per turn. Optional.
	// Defaults to false: parallel tool use allowed.
	DisableParallelToolUse bool
	// Prepare may change each request before it is sent (temperature, thinking, …).
	// Optional. It must be safe for concurrent use.
	Prepare func(*anthropic.MessageNewParams)
	// OnResponse sees every response, before it is converted: read msg.Usage for the tokens
	// each turn used. Optional. It must be safe for concurrent use.
	OnResponse func(ctx context.Context, msg *anthropic.Message)
	// RequestOptions are passed with every request. Optional.
	RequestOptions []option.RequestOption
}

// LLM is an executor.LLM over the Messages API. It is safe for concurrent use when its
// MessageCreator is (the SDK's is).
type LLM struct {
	svc MessageCreator
	cfg Config
}

var _ executor.LLM = (*LLM)(nil)

// New returns an executor.LLM that calls svc (usually &client.Messages). It fails with
// ErrConfig without svc or a model.
func New(svc MessageCreator, cfg Config) (*LLM, error) {
	if svc == nil {
		return nil, fmt.Errorf("%w: nil messages service", ErrConfig)
	}
	if cfg.Model == "" {
		return nil, fmt.Errorf("%w: no model", ErrConfig)
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	return &LLM{svc: svc, cfg: cfg}, nil
}

// Complete sends one turn: system messages as the system prompt, the rest as alternating
// user and assistant turns (consecutive tool results and user messages merged into one
// user turn), the tools and the tool choice; and returns the response as an assistant
// message.
func (l *LLM) Complete(ctx context.Context, req executor.LLMRequest) (executor.Message, error) {
	tools, err := Tools(req.Tools, l.cfg.Strict)
	if err != nil {
		return executor.Message{}, err
	}
	system, msgs := Messages(req.Messages)
	params := anthropic.MessageNewParams{
		Model:     l.cfg.Model,
		MaxTokens: l.cfg.MaxTokens,
		System:    system,
		Messages:  msgs,
		Tools:     tools,
	}
	if len(tools) > 0 {
		params.ToolChoice = toolChoice(req.ToolChoice, l.cfg.DisableParallelToolUse)
	}
	if l.cfg.Prepare != nil {
		l.cfg.Prepare(&params)
	}
	resp, err := l.svc.New(ctx, params, l.cfg.RequestOptions...)
	if err != nil {
		return executor.Message{}, fmt.Errorf("anthropicadapter: message: %w", err)
	}
	if l.cfg.OnResponse != nil {
		l.cfg.OnResponse(ctx, resp)
	}
	out := executor.Message{Role: executor.RoleAssistant}
	for _, b := range resp.Content {
		if b.Type == "text" {
			out.Content += b.Text
		}
	}
	for _, c := range Calls(resp) {
		out.ToolCalls = append(out.ToolCalls, executor.Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	return out, nil
}

func toolChoice(c executor.ToolChoice, noParallel bool) anthropic.ToolChoiceUnionParam {
	var disable anthropic.ToolChoiceAutoParam
	if noParallel {
		disable.DisableParallelToolUse = anthropic.Bool(true)
	}
	switch c {
	case executor.ToolChoiceNone:
		none := anthropic.NewToolChoiceNoneParam()
		return anthropic.ToolChoiceUnionParam{OfNone: &none}
	case executor.ToolChoiceRequired:
		return anthropic.ToolChoiceUnionParam{OfAny: &anthropic.ToolChoiceAnyParam{DisableParallelToolUse: disable.DisableParallelToolUse}}
	}
	return anthropic.ToolChoiceUnionParam{OfAuto: &disable}
}

// Messages returns a conversation as the Messages API wants it: the system messages, in
// order, as system text blocks, and the rest as turns in which consecutive messages of the
// same side are merged (tool results, then any user text, in one user turn). An assistant
// message's tool calls become tool_use blocks; a tool message becomes a tool_result block.
func Messages(msgs []executor.Message) ([]anthropic.TextBlockParam, []anthropic.MessageParam) {
	var system []anthropic.TextBlockParam
	var out []anthropic.MessageParam
	add := func(role anthropic.MessageParamRole, blocks ...anthropic.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			return
		}
		out = append(out, anthropic.MessageParam{Role: role, Content: blocks})
	}
	for _, m := range msgs {
		switch m.Role {
		case executor.RoleSystem:
			if m.Content != "" {
				system = append(system, anthropic.TextBlockParam{Text: m.Content})
			}
		case executor.RoleTool:
			add(anthropic.MessageParamRoleUser, anthropic.NewToolResultBlock(m.ToolCallID, m.Content, adapterwire.IsErrorResult(m.Content)))
		case executor.RoleAssistant:
			var blocks []anthropic.ContentBlockParamUnion
			if m.Content != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Content))
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, adapterwire.Arguments(tc.Arguments), tc.Name))
			}
			add(anthropic.MessageParamRoleAssistant, blocks...)
		default:
			if m.Content != "" {
				add(anthropic.MessageParamRoleUser, anthropic.NewTextBlock(m.Content))
			}
		}
	}
	return system, out
}
