package openaiadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adapterwire"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// ResponseTool returns fn as a Responses API function tool, strict as in ChatTool.
func ResponseTool(fn schema.Function, strict bool) (responses.ToolUnionParam, error) {
	r, params, err := render(fn, true, strict)
	if err != nil {
		return responses.ToolUnionParam{}, err
	}
	t := responses.FunctionToolParam{Name: r.Name, Parameters: params, Strict: openai.Bool(r.Strict)}
	if r.Description != "" {
		t.Description = openai.String(r.Description)
	}
	return responses.ToolUnionParam{OfFunction: &t}, nil
}

// ResponseTools returns fns as Responses API function tools, in order (see ResponseTool).
func ResponseTools(fns []schema.Function, strict bool) ([]responses.ToolUnionParam, error) {
	return adapterwire.Map(fns, func(fn schema.Function) (responses.ToolUnionParam, error) { return ResponseTool(fn, strict) })
}

// HintResponseTools is HintChatTools for the Responses API: the actions of h that sub may
// call, as ResponseTools returns them.
func HintResponseTools(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result, strict bool) ([]responses.ToolUnionParam, registry.Resolution, error) {
	return adapterwire.HintMap(ctx, r, sub, h, ErrConfig, func(fn schema.Function) (responses.ToolUnionParam, error) { return ResponseTool(fn, strict) })
}

// ResponseCalls returns the function calls in a response's output as executor calls, in
// order; the call id is the item's call_id, which ResponseToolOutputs answers.
func ResponseCalls(resp *responses.Response) []executor.Call {
	if resp == nil {
		return nil
	}
	var out []executor.Call
	for _, item := range resp.Output {
		if item.Type != "function_call" {
			continue
		}
		fc := item.AsFunctionCall()
		out = append(out, executor.Call{ID: fc.CallID, Name: fc.Name, Arguments: adapterwire.Arguments(json.RawMessage(fc.Arguments))})
	}
	return out
}

// ResponseToolOutputs returns one function_call_output item per result, answering the call
// with the result's CallID and carrying Result.ForModel.
func ResponseToolOutputs(results []executor.Result) []responses.ResponseInputItemUnionParam {
	out := make([]responses.ResponseInputItemUnionParam, len(results))
	for i, r := range results {
		out[i] = functionOutput(r.CallID, r.ForModel())
	}
	return out
}

func functionOutput(callID, output string) responses.ResponseInputItemUnionParam {
	item := responses.ResponseInputItemParamOfFunctionCallOutput(output)
	item.OfFunctionCallOutput.CallID = openai.String(callID)
	return item
}

// ResponseInputs returns a response's output as input items for the next request of a
// conversation kept by the host (without previous_response_id): its messages, function
// calls and reasoning items, in order. Other items (hosted tools) are left out.
func ResponseInputs(resp *responses.Response) []responses.ResponseInputItemUnionParam {
	if resp == nil {
		return nil
	}
	var out []responses.ResponseInputItemUnionParam
	for _, item := range resp.Output {
		switch item.Type {
		case "message":
			p := item.AsMessage().ToParam()
			out = append(out, responses.ResponseInputItemUnionParam{OfOutputMessage: &p})
		case "function_call":
			p := item.AsFunctionCall().ToParam()
			out = append(out, responses.ResponseInputItemUnionParam{OfFunctionCall: &p})
		case "reasoning":
			p := item.AsReasoning().ToParam()
			out = append(out, responses.ResponseInputItemUnionParam{OfReasoning: &p})
		}
	}
	return out
}

// ResponseCreator is the part of the SDK's responses service the adapter calls;
// *responses.ResponseService (client.Responses) satisfies it.
type ResponseCreator interface {
	New(ctx context.Context, body responses.ResponseNewParams, opts ...option.RequestOption) (*responses.Response, error)
}

// ResponsesConfig configures NewResponses. It is copied by NewResponses.
type ResponsesConfig struct {
	// Model is the model to call, e.g. openai.ChatModel("gpt-5.5"). Required.
	Model openai.ResponsesModel
	// Strict sends strict function definitions where the schema allows it. Optional.
	// Defaults to false.
	Strict bool
	// DisableParallelToolCalls asks the model for at most one tool call per turn. Optional.
	// Defaults to false: the API's default, parallel calls allowed.
	DisableParallelToolCalls bool
	// Prepare may change each request before it is sent. Optional. It must be safe for
	// concurrent use.
	Prepare func(*responses.ResponseNewParams)
	// OnResponse sees every response, before it is converted: read resp.Usage for the
	// tokens each turn used. Optional. It must be safe for concurrent use.
	OnResponse func(ctx context.Context, resp *responses.Response)
	// RequestOptions are passed with every request. Optional.
	RequestOptions []option.RequestOption
}

// Responses is an executor.LLM over the Responses API. Each turn sends the whole
// conversation (no previous_response_id), so it works with store=false; reasoning items are
// not carried between turns. It is safe for concurrent use when its ResponseCreator is.
type Responses struct {
	svc ResponseCreator
	cfg ResponsesConfig
}

var _ executor.LLM = (*Responses)(nil)

// NewResponses returns an executor.LLM that calls svc (usually &client.Responses). It fails
// with ErrConfig without svc or a model.
func NewResponses(svc ResponseCreator, cfg ResponsesConfig) (*Responses, error) {
	if svc == nil {
		return nil, fmt.Errorf("%w: nil responses service", ErrConfig)
	}
	if cfg.Model == "" {
		return nil, fmt.Errorf("%w: no model", ErrConfig)
	}
	return &Responses{svc: svc, cfg: cfg}, nil
}

// Complete sends one turn and returns the response's text and function calls as an
// assistant message.
func (r *Responses) Complete(ctx context.Context, req executor.LLMRequest) (executor.Message, error) {
	tools, err := ResponseTools(req.Tools, r.cfg.Strict)
	if err != nil {
		return executor.Message{}, err
	}
	params := responses.ResponseNewParams{
		Model: r.cfg.Model,
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: ResponseMessages(req.Messages)},
		Tools: tools,
	}
	if len(tools) > 0 {
		if req.ToolChoice != "" {
			params.ToolChoice = responses.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: openai.Opt(responses.ToolChoiceOptions(req.ToolChoice))}
		}
		if r.cfg.DisableParallelToolCalls {
			params.ParallelToolCalls = openai.Bool(false)
		}
	}
	if r.cfg.Prepare != nil {
		r.cfg.Prepare(&params)
	}
	resp, err := r.svc.New(ctx, params, r.cfg.RequestOptions...)
	if err != nil {
		return executor.Message{}, fmt.Errorf("openaiadapter: response: %w", err)
	}
	if r.cfg.OnResponse != nil {
		r.cfg.OnResponse(ctx, resp)
	}
	if resp.Error.Message != "" {
		return executor.Message{}, fmt.Errorf("openaiadapter: response %s: %s", resp.Status, resp.Error.Message)
	}
	out := executor.Message{Role: executor.RoleAssistant, Content: resp.OutputText()}
	for _, call := range ResponseCalls(resp) {
		out.ToolCalls = append(out.ToolCalls, executor.Call{ID: call.ID, Name: call.Name, Arguments: call.Arguments})
	}
	if out.Content == "" && len(out.ToolCalls) == 0 && resp.Status == responses.ResponseStatusIncomplete {
		return out, errors.New("openaiadapter: response incomplete: " + string(resp.IncompleteDetails.Reason))
	}
	return out, nil
}

// ResponseMessages returns a conversation as Responses API input items: system, user and
// assistant text as messages, an assistant's tool calls as function_call items and tool
// messages as function_call_output items, in order.
func ResponseMessages(msgs []executor.Message) responses.ResponseInputParam {
	out := make(responses.ResponseInputParam, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case executor.RoleSystem:
			out = append(out, responses.ResponseInputItemParamOfMessage(m.Content, responses.EasyInputMessageRoleSystem))
		case executor.RoleTool:
			out = append(out, functionOutput(m.ToolCallID, m.Content))
		case executor.RoleAssistant:
			if m.Content != "" {
				out = append(out, responses.ResponseInputItemParamOfMessage(m.Content, responses.EasyInputMessageRoleAssistant))
			}
			for _, tc := range m.ToolCalls {
				out = append(out, responses.ResponseInputItemParamOfFunctionCall(string(adapterwire.Arguments(tc.Arguments)), tc.ID, tc.Name))
			}
		default:
			out = append(out, responses.ResponseInputItemParamOfMessage(m.Content, responses.EasyInputMessageRoleUser))
		}
	}
	return out
}
