package openaiadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adapterwire"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// ErrConfig reports a constructor argument the adapter cannot work with.
var ErrConfig = errors.New("openaiadapter: invalid config")

// rendered is one function as schema renders it for OpenAI, read back.
type rendered struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// render renders fn through schema's OpenAI renderer (which picks the strict variant when
// the schema allows it) and decodes its parameters.
func render(fn schema.Function, responses, strict bool) (rendered, map[string]any, error) {
	var (
		raw json.RawMessage
		err error
	)
	if responses {
		raw, err = fn.OpenAIResponses(strict)
	} else {
		raw, err = fn.OpenAI(strict)
	}
	if err != nil {
		return rendered{}, nil, fmt.Errorf("openaiadapter: function %q: %w", fn.Slug, err)
	}
	var r rendered
	if responses {
		err = json.Unmarshal(raw, &r)
	} else {
		var w struct {
			Function rendered `json:"function"`
		}
		err = json.Unmarshal(raw, &w)
		r = w.Function
	}
	if err != nil {
		return rendered{}, nil, fmt.Errorf("openaiadapter: function %q: %w", fn.Slug, err)
	}
	params, err := adapterwire.Decode(r.Parameters)
	if err != nil {
		return rendered{}, nil, fmt.Errorf("openaiadapter: function %q parameters: %w", fn.Slug, err)
	}
	return r, params, nil
}

// ChatTool returns fn as a Chat Completions function tool. With strict true the strict
// variant of its schema is sent with "strict": true, unless the schema cannot be made strict
// (fn.StrictReason), in which case this function alone goes out non-strict.
func ChatTool(fn schema.Function, strict bool) (openai.ChatCompletionToolUnionParam, error) {
	r, params, err := render(fn, false, strict)
	if err != nil {
		return openai.ChatCompletionToolUnionParam{}, err
	}
	def := shared.FunctionDefinitionParam{
		Name:       r.Name,
		Parameters: shared.FunctionParameters(params),
		Strict:     openai.Bool(r.Strict),
	}
	if r.Description != "" {
		def.Description = openai.String(r.Description)
	}
	return openai.ChatCompletionFunctionTool(def), nil
}

// ChatTools returns fns as Chat Completions function tools, in order (see ChatTool). It
// fails on the first function that cannot be rendered.
func ChatTools(fns []schema.Function, strict bool) ([]openai.ChatCompletionToolUnionParam, error) {
	return adapterwire.Map(fns, func(fn schema.Function) (openai.ChatCompletionToolUnionParam, error) { return ChatTool(fn, strict) })
}

// HintChatTools goes from a hint to Chat Completions tools in one call: the actions of h
// that sub may call, access-checked and rendered by r (registry.Resolver.Functions: the
// executor's validation mode and overrides, identity keys hidden), as ChatTools returns
// them. The Resolution says which actions were kept and why any was left out. It fails with
// ErrConfig for a nil resolver, and otherwise as Functions and ChatTools do.
func HintChatTools(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result, strict bool) ([]openai.ChatCompletionToolUnionParam, registry.Resolution, error) {
	return adapterwire.HintMap(ctx, r, sub, h, ErrConfig, func(fn schema.Function) (openai.ChatCompletionToolUnionParam, error) { return ChatTool(fn, strict) })
}

// ChatCalls returns the function calls of an assistant message as executor calls, in order;
// custom-tool calls are left out. Empty arguments become {}.
func ChatCalls(msg openai.ChatCompletionMessage) []executor.Call {
	var out []executor.Call
	for _, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		out = append(out, executor.Call{ID: tc.ID, Name: tc.Function.Name, Arguments: adapterwire.Arguments(json.RawMessage(tc.Function.Arguments))})
	}
	return out
}

// ChatToolMessages returns one tool message per result, answering the call with the
// result's CallID and carrying Result.ForModel.
func ChatToolMessages(results []executor.Result) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, len(results))
	for i, r := range results {
		out[i] = openai.ToolMessage(r.ForModel(), r.CallID)
	}
	return out
}

// ChatCompleter is the part of the SDK's chat completions service the adapter calls;
// *openai.ChatCompletionService (client.Chat.Completions) satisfies it.
type ChatCompleter interface {
	New(ctx context.Context, body openai.ChatCompletionNewParams, opts ...option.RequestOption) (*openai.ChatCompletion, error)
}

// ChatConfig configures NewChat. It is copied by NewChat.
type ChatConfig struct {
	// Model is the model to call, e.g. openai.ChatModel("gpt-5.5"). Required.
	Model openai.ChatModel
	// Strict sends strict function definitions where the schema allows it. Optional.
	// Defaults to false.
	Strict bool
	// DisableParallelToolCalls asks the model for at most one tool call per turn. Optional.
	// Defaults to false: the API's default, parallel calls allowed.
	DisableParallelToolCalls bool
	// Prepare may change each request before it is sent (temperature, token limits, user,
	// metadata, …). Optional. It must be safe for concurrent use.
	Prepare func(*openai.ChatCompletionNewParams)
	// OnResponse sees every response, before it is converted: read resp.Usage for the
	// tokens each turn used. Optional. It must be safe for concurrent use.
	OnResponse func(ctx context.Context, resp *openai.ChatCompletion)
	// RequestOptions are passed with every request. Optional.
	RequestOptions []option.RequestOption
}

// Chat is an executor.LLM over the Chat Completions API. It is safe for concurrent use
// when its ChatCompleter is (the SDK's is).
type Chat struct {
	svc ChatCompleter
	cfg ChatConfig
}

var _ executor.LLM = (*Chat)(nil)

// NewChat returns an executor.LLM that calls svc (usually &client.Chat.Completions). It
// fails with ErrConfig without svc or a model.
func NewChat(svc ChatCompleter, cfg ChatConfig) (*Chat, error) {
	if svc == nil {
		return nil, fmt.Errorf("%w: nil chat completions service", ErrConfig)
	}
	if cfg.Model == "" {
		return nil, fmt.Errorf("%w: no model", ErrConfig)
	}
	return &Chat{svc: svc, cfg: cfg}, nil
}

// Complete sends one turn: the conversation, the tools and the tool choice, and returns the
// first choice as an assistant message.
func (c *Chat) Complete(ctx context.Context, req executor.LLMRequest) (executor.Message, error) {
	tools, err := ChatTools(req.Tools, c.cfg.Strict)
	if err != nil {
		return executor.Message{}, err
	}
	params := openai.ChatCompletionNewParams{
		Model:    c.cfg.Model,
		Messages: ChatMessages(req.Messages),
		Tools:    tools,
	}
	if len(tools) > 0 {
		if req.ToolChoice != "" {
			params.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String(string(req.ToolChoice))}
		}
		if c.cfg.DisableParallelToolCalls {
			params.ParallelToolCalls = openai.Bool(false)
		}
	}
	if c.cfg.Prepare != nil {
		c.cfg.Prepare(&params)
	}
	resp, err := c.svc.New(ctx, params, c.cfg.RequestOptions...)
	if err != nil {
		return executor.Message{}, fmt.Errorf("openaiadapter: chat completion: %w", err)
	}
	if c.cfg.OnResponse != nil {
		c.cfg.OnResponse(ctx, resp)
	}
	if len(resp.Choices) == 0 {
		return executor.Message{}, errors.New("openaiadapter: chat completion: the response has no choices")
	}
	msg := resp.Choices[0].Message
	out := executor.Message{Role: executor.RoleAssistant, Content: msg.Content}
	if out.Content == "" && msg.Refusal != "" {
		out.Content = msg.Refusal
	}
	for _, call := range ChatCalls(msg) {
		out.ToolCalls = append(out.ToolCalls, executor.Call{ID: call.ID, Name: call.Name, Arguments: call.Arguments})
	}
	return out, nil
}

// ChatMessages returns a conversation as Chat Completions messages: system, user, assistant
// (with its tool calls) and tool messages, in order.
func ChatMessages(msgs []executor.Message) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case executor.RoleSystem:
			out = append(out, openai.SystemMessage(m.Content))
		case executor.RoleTool:
			out = append(out, openai.ToolMessage(m.Content, m.ToolCallID))
		case executor.RoleAssistant:
			var a openai.ChatCompletionAssistantMessageParam
			if m.Content != "" {
				a.Content.OfString = openai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: string(adapterwire.Arguments(tc.Arguments))},
					},
				})
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		default:
			out = append(out, openai.UserMessage(m.Content))
		}
	}
	return out
}
