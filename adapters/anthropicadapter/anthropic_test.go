package anthropicadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/adapters/anthropicadapter"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/internal/adaptertest"
	"github.com/toolhint/toolhint/schema"
)

func TestRequest(t *testing.T) {
	fn, err := schema.Convert("GMAIL_SEND_EMAIL", "Send an email.", json.RawMessage(
		`{"type":"object","properties":{"to":{"type":"string"},"cc":{"type":"string"}},"required":["to"]}`))
	if err != nil {
		t.Fatal(err)
	}
	conversation := []executor.Message{
		{Role: executor.RoleSystem, Content: "Be brief."},
		{Role: executor.RoleSystem, Content: "You MUST call GMAIL_SEND_EMAIL."},
		{Role: executor.RoleUser, Content: "Email jay and ann"},
		{Role: executor.RoleAssistant, Content: "Sending.", ToolCalls: []executor.Call{
			{ID: "toolu_1", Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"to":"jay@acme.com"}`)},
			{ID: "toolu_2", Name: "GMAIL_SEND_EMAIL"}}},
		{Role: executor.RoleTool, ToolCallID: "toolu_1", Content: `{"sent":true}`},
		{Role: executor.RoleTool, ToolCallID: "toolu_2", Content: "error (invalid_arguments): /to is required"},
		{Role: executor.RoleUser, Content: "and tell me when done"},
	}
	tests := []struct {
		name       string
		cfg        anthropicadapter.Config
		choice     executor.ToolChoice
		wantChoice any
		wantStrict any
	}{
		{"required, no parallel, strict", anthropicadapter.Config{Model: "claude-x", Strict: true, DisableParallelToolUse: true}, executor.ToolChoiceRequired,
			map[string]any{"type": "any", "disable_parallel_tool_use": true}, true},
		{"auto", anthropicadapter.Config{Model: "claude-x"}, executor.ToolChoiceAuto, map[string]any{"type": "auto"}, nil},
		{"none", anthropicadapter.Config{Model: "claude-x"}, executor.ToolChoiceNone, map[string]any{"type": "none"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := adaptertest.Start(adaptertest.Script(adaptertest.JSON(`{"id":"m","type":"message","role":"assistant","model":"claude-x",
				"content":[{"type":"tool_use","id":"toolu_3","name":"GMAIL_SEND_EMAIL","input":{}}],
				"stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":2}}`)))
			defer model.Close()
			client := anthropic.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
			llm, err := anthropicadapter.New(&client.Messages, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			msg, err := llm.Complete(context.Background(), executor.LLMRequest{Messages: conversation, Tools: []schema.Function{fn}, ToolChoice: tt.choice})
			if err != nil {
				t.Fatal(err)
			}
			want := executor.Message{Role: executor.RoleAssistant, ToolCalls: []executor.Call{{ID: "toolu_3", Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{}`)}}}
			if diff := cmp.Diff(want, msg); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			body := model.Requests()[0].Body
			if body["max_tokens"] != float64(anthropicadapter.DefaultMaxTokens) {
				t.Errorf("max_tokens = %v, want the default", body["max_tokens"])
			}
			wantSystem := []any{map[string]any{"type": "text", "text": "Be brief."}, map[string]any{"type": "text", "text": "You MUST call GMAIL_SEND_EMAIL."}}
			if diff := cmp.Diff(wantSystem, body["system"]); diff != "" {
				t.Errorf("system (-want +got):\n%s", diff)
			}
			wantMsgs := []any{
				map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Email jay and ann"}}},
				map[string]any{"role": "assistant", "content": []any{
					map[string]any{"type": "text", "text": "Sending."},
					map[string]any{"type": "tool_use", "id": "toolu_1", "name": "GMAIL_SEND_EMAIL", "input": map[string]any{"to": "jay@acme.com"}},
					map[string]any{"type": "tool_use", "id": "toolu_2", "name": "GMAIL_SEND_EMAIL", "input": map[string]any{}}}},
				// Both tool results and the user's text in one user turn.
				map[string]any{"role": "user", "content": []any{
					map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false, "content": []any{map[string]any{"type": "text", "text": `{"sent":true}`}}},
					map[string]any{"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true, "content": []any{map[string]any{"type": "text", "text": "error (invalid_arguments): /to is required"}}},
					map[string]any{"type": "text", "text": "and tell me when done"}}},
			}
			if diff := cmp.Diff(wantMsgs, body["messages"]); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantChoice, body["tool_choice"]); diff != "" {
				t.Errorf("tool_choice (-want +got):\n%s", diff)
			}
			tool := body["tools"].([]any)[0].(map[string]any)
			if diff := cmp.Diff(tt.wantStrict, tool["strict"]); diff != "" {
				t.Errorf("strict (-want +got):\n%s", diff)
			}
			schemaRaw, _ := json.Marshal(tool["input_schema"])
			wantSchema := fn.Parameters
			if tt.cfg.Strict {
				wantSchema, _ = fn.StrictParameters()
			}
			var got, wantV any
			json.Unmarshal(schemaRaw, &got)
			json.Unmarshal(wantSchema, &wantV)
			if diff := cmp.Diff(wantV, got); diff != "" {
				t.Errorf("input_schema (-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolResults(t *testing.T) {
	msg := anthropicadapter.ToolResults([]executor.Result{
		{CallID: "toolu_1", Tool: "a", OK: true, Data: json.RawMessage(`{"x":1}`)},
		{CallID: "toolu_2", Tool: "b", ErrorKind: executor.KindTimeout, Error: "b did not finish"},
	})
	raw, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	var got any
	json.Unmarshal(raw, &got)
	want := map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false, "content": []any{map[string]any{"type": "text", "text": `{"x":1}`}}},
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true, "content": []any{map[string]any{"type": "text", "text": "error (timeout): b did not finish"}}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ToolResults (-want +got):\n%s", diff)
	}
}

func TestNewErrors(t *testing.T) {
	client := anthropic.NewClient(option.WithAPIKey("test"))
	if _, err := anthropicadapter.New(nil, anthropicadapter.Config{Model: "m"}); !errors.Is(err, anthropicadapter.ErrConfig) {
		t.Errorf("New(nil) error = %v, want ErrConfig", err)
	}
	if _, err := anthropicadapter.New(&client.Messages, anthropicadapter.Config{}); !errors.Is(err, anthropicadapter.ErrConfig) {
		t.Errorf("New without a model: error = %v, want ErrConfig", err)
	}
}
