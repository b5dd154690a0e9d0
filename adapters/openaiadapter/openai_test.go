package openaiadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolhint/toolhint/adapters/openaiadapter"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/internal/adaptertest"
	"github.com/toolhint/toolhint/schema"
)

// functions returns a function whose schema can be strict and one whose schema cannot
// (a property with no type).
func functions(t *testing.T) []schema.Function {
	t.Helper()
	strict, err := schema.Convert("GMAIL_SEND_EMAIL", "Send an email.", json.RawMessage(
		`{"type":"object","properties":{"to":{"type":"string"},"count":{"type":"integer","minimum":1,"maximum":1000000000000}},"required":["to"]}`))
	if err != nil {
		t.Fatal(err)
	}
	loose, err := schema.Convert("APP_FREEFORM", "Anything goes.", json.RawMessage(`{"type":"object","properties":{"x":{"description":"any value"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if loose.StrictReason == "" {
		t.Fatal("the loose fixture became strict; pick another")
	}
	return []schema.Function{strict, loose}
}

// conversation has every role, with an assistant turn that called a tool.
var conversation = []executor.Message{
	{Role: executor.RoleSystem, Content: "You MUST call GMAIL_SEND_EMAIL."},
	{Role: executor.RoleUser, Content: "Email jay"},
	{Role: executor.RoleAssistant, ToolCalls: []executor.Call{{ID: "call_1", Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"to":"jay@acme.com"}`)}}},
	{Role: executor.RoleTool, ToolCallID: "call_1", Name: "GMAIL_SEND_EMAIL", Content: `{"sent":true}`},
}

// pick returns the values at the given keys of a decoded JSON object, for comparing the
// parts of a request that matter.
func pick(v any, keys ...string) map[string]any {
	m, _ := v.(map[string]any)
	out := map[string]any{}
	for _, k := range keys {
		if x, ok := m[k]; ok {
			out[k] = x
		}
	}
	return out
}

func TestChatRequest(t *testing.T) {
	tests := []struct {
		name       string
		cfg        openaiadapter.ChatConfig
		choice     executor.ToolChoice
		tools      bool
		wantTop    map[string]any
		wantStrict []any
	}{
		{"strict, required, no parallel calls", openaiadapter.ChatConfig{Model: "gpt-4o", Strict: true, DisableParallelToolCalls: true}, executor.ToolChoiceRequired, true,
			map[string]any{"model": "gpt-4o", "tool_choice": "required", "parallel_tool_calls": false}, []any{true, false}},
		{"plain, auto", openaiadapter.ChatConfig{Model: "gpt-4o"}, executor.ToolChoiceAuto, true,
			map[string]any{"model": "gpt-4o", "tool_choice": "auto"}, []any{false, false}},
		{"no tools: no tool choice", openaiadapter.ChatConfig{Model: "gpt-4o", DisableParallelToolCalls: true}, executor.ToolChoiceRequired, false,
			map[string]any{"model": "gpt-4o"}, nil},
		{"prepare", openaiadapter.ChatConfig{Model: "gpt-4o", Prepare: func(p *openai.ChatCompletionNewParams) { p.Temperature = openai.Float(0) }}, "", false,
			map[string]any{"model": "gpt-4o", "temperature": 0.0}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := adaptertest.Start(adaptertest.Script(adaptertest.JSON(`{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o",
				"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"on it","tool_calls":[
					{"id":"call_2","type":"function","function":{"name":"GMAIL_SEND_EMAIL","arguments":""}}]}}],
				"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}`)))
			defer model.Close()
			client := openai.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
			var usage int64
			cfg := tt.cfg
			cfg.OnResponse = func(_ context.Context, r *openai.ChatCompletion) { usage = r.Usage.TotalTokens }
			llm, err := openaiadapter.NewChat(&client.Chat.Completions, cfg)
			if err != nil {
				t.Fatal(err)
			}
			req := executor.LLMRequest{Messages: conversation, ToolChoice: tt.choice}
			if tt.tools {
				req.Tools = functions(t)
			}
			msg, err := llm.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			want := executor.Message{Role: executor.RoleAssistant, Content: "on it",
				ToolCalls: []executor.Call{{ID: "call_2", Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{}`)}}}
			if diff := cmp.Diff(want, msg); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if usage != 10 {
				t.Errorf("OnResponse saw usage %d, want 10", usage)
			}

			body := model.Requests()[0].Body
			if diff := cmp.Diff(tt.wantTop, pick(body, "model", "tool_choice", "parallel_tool_calls", "temperature")); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			wantMsgs := []any{
				map[string]any{"role": "system", "content": "You MUST call GMAIL_SEND_EMAIL."},
				map[string]any{"role": "user", "content": "Email jay"},
				map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
					"function": map[string]any{"name": "GMAIL_SEND_EMAIL", "arguments": `{"to":"jay@acme.com"}`}}}},
				map[string]any{"role": "tool", "tool_call_id": "call_1", "content": `{"sent":true}`},
			}
			if diff := cmp.Diff(wantMsgs, body["messages"]); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			tools, _ := body["tools"].([]any)
			var strict []any
			for _, tl := range tools {
				fn := tl.(map[string]any)["function"].(map[string]any)
				strict = append(strict, fn["strict"])
			}
			if diff := cmp.Diff(tt.wantStrict, strict); diff != "" {
				t.Errorf("strict flags (-want +got):\n%s", diff)
			}
		})
	}
}

// TestChatToolsSchema checks the parameters sent: the strict variant when asked for, and
// numbers written as numbers after the trip through the SDK's map type.
func TestChatToolsSchema(t *testing.T) {
	fns := functions(t)
	for _, strict := range []bool{false, true} {
		tools, err := openaiadapter.ChatTools(fns, strict)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(tools[0])
		if err != nil {
			t.Fatal(err)
		}
		wantRaw, err := fns[0].OpenAI(strict)
		if err != nil {
			t.Fatal(err)
		}
		var want, gotV any
		if err := json.Unmarshal(wantRaw, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got, &gotV); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, gotV); diff != "" {
			t.Errorf("strict=%v: the SDK param differs from schema's rendering (-want +got):\n%s", strict, diff)
		}
		if !strings.Contains(string(got), `"maximum":1000000000000`) {
			t.Errorf("strict=%v: the maximum is not written as a number: %s", strict, got)
		}
	}
}

func TestResponsesRequest(t *testing.T) {
	model := adaptertest.Start(adaptertest.Script(adaptertest.JSON(`{"id":"r","object":"response","created_at":1,"status":"completed","model":"gpt-4o",
		"output":[{"type":"message","id":"m","role":"assistant","status":"completed","content":[{"type":"output_text","text":"on it","annotations":[]}]},
			{"type":"function_call","id":"fc","call_id":"call_2","name":"GMAIL_SEND_EMAIL","arguments":"{\"to\":\"x@y.z\"}","status":"completed"}],
		"usage":{"input_tokens":7,"output_tokens":3,"total_tokens":10}}`)))
	defer model.Close()
	client := openai.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	llm, err := openaiadapter.NewResponses(&client.Responses, openaiadapter.ResponsesConfig{Model: "gpt-4o", Strict: true, DisableParallelToolCalls: true})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := llm.Complete(context.Background(), executor.LLMRequest{Messages: conversation, Tools: functions(t), ToolChoice: executor.ToolChoiceRequired})
	if err != nil {
		t.Fatal(err)
	}
	want := executor.Message{Role: executor.RoleAssistant, Content: "on it",
		ToolCalls: []executor.Call{{ID: "call_2", Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"to":"x@y.z"}`)}}}
	if diff := cmp.Diff(want, msg); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	body := model.Requests()[0].Body
	if diff := cmp.Diff(map[string]any{"model": "gpt-4o", "tool_choice": "required", "parallel_tool_calls": false},
		pick(body, "model", "tool_choice", "parallel_tool_calls")); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	var items []any
	for _, it := range body["input"].([]any) {
		items = append(items, pick(it, "type", "role", "content", "call_id", "name", "arguments", "output"))
	}
	wantItems := []any{
		map[string]any{"role": "system", "content": "You MUST call GMAIL_SEND_EMAIL."},
		map[string]any{"role": "user", "content": "Email jay"},
		map[string]any{"type": "function_call", "call_id": "call_1", "name": "GMAIL_SEND_EMAIL", "arguments": `{"to":"jay@acme.com"}`},
		map[string]any{"type": "function_call_output", "call_id": "call_1", "output": `{"sent":true}`},
	}
	if diff := cmp.Diff(wantItems, items); diff != "" {
		t.Errorf("input items (-want +got):\n%s", diff)
	}
	var strict []any
	for _, tl := range body["tools"].([]any) {
		strict = append(strict, tl.(map[string]any)["strict"])
	}
	if diff := cmp.Diff([]any{true, false}, strict); diff != "" {
		t.Errorf("strict flags (-want +got):\n%s", diff)
	}
}

func TestNewErrors(t *testing.T) {
	client := openai.NewClient(option.WithAPIKey("test"))
	if _, err := openaiadapter.NewChat(nil, openaiadapter.ChatConfig{Model: "gpt-4o"}); !errors.Is(err, openaiadapter.ErrConfig) {
		t.Errorf("NewChat(nil) error = %v, want ErrConfig", err)
	}
	if _, err := openaiadapter.NewChat(&client.Chat.Completions, openaiadapter.ChatConfig{}); !errors.Is(err, openaiadapter.ErrConfig) {
		t.Errorf("NewChat without a model: error = %v, want ErrConfig", err)
	}
	if _, err := openaiadapter.NewResponses(&client.Responses, openaiadapter.ResponsesConfig{}); !errors.Is(err, openaiadapter.ErrConfig) {
		t.Errorf("NewResponses without a model: error = %v, want ErrConfig", err)
	}
}

// TestChatModelError passes the API's failure on as an error wrapping the SDK's.
func TestChatModelError(t *testing.T) {
	model := adaptertest.Start(adaptertest.Script()) // answers every turn with a 500
	defer model.Close()
	client := openai.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	llm, err := openaiadapter.NewChat(&client.Chat.Completions, openaiadapter.ChatConfig{Model: "gpt-4o"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = llm.Complete(context.Background(), executor.LLMRequest{Messages: conversation})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 {
		t.Errorf("error = %v, want an *openai.Error with status 500", err)
	}
}
