package genaiadapter_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/toolhint/toolhint/adapters/genaiadapter"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/internal/adaptertest"
	"github.com/toolhint/toolhint/schema"
)

// TestDeclarationsKeepTheSchema converts every action of the project's test catalogue and
// checks that the SDK's declaration says what schema's Gemini rendering says: nothing is
// lost in genai.Schema.
func TestDeclarationsKeepTheSchema(t *testing.T) {
	f, err := os.Open("../../testdata/catalog/actions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var row struct {
			Action, Description string
			Parameters          json.RawMessage
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		fn, err := schema.Convert(row.Action, row.Description, row.Parameters)
		if err != nil {
			t.Fatal(err)
		}
		d, err := genaiadapter.Declaration(fn)
		if err != nil {
			t.Errorf("%s: %v", row.Action, err)
			continue
		}
		got, _ := json.Marshal(d)
		want, _ := fn.Gemini()
		var g, w any
		json.Unmarshal(got, &g)
		json.Unmarshal(want, &w)
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("%s: declaration (-schema.Gemini +genai):\n%s", row.Action, diff)
		}
		n++
	}
	if n < 50 {
		t.Fatalf("only %d actions read", n)
	}
}

func TestRequest(t *testing.T) {
	fns := adaptertest.Executor().Registry().Functions()
	tests := []struct {
		choice executor.ToolChoice
		mode   string
	}{
		{executor.ToolChoiceRequired, "ANY"},
		{executor.ToolChoiceAuto, "AUTO"},
		{executor.ToolChoiceNone, "NONE"},
	}
	for _, tt := range tests {
		t.Run(string(tt.choice), func(t *testing.T) {
			model := adaptertest.Start(adaptertest.Script(adaptertest.JSON(`{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]}}]}`)))
			defer model.Close()
			client, err := newClient(context.Background(), model.URL)
			if err != nil {
				t.Fatal(err)
			}
			llm, err := genaiadapter.New(client.Models, genaiadapter.Config{Model: "gemini-x", Prepare: func(c *genai.GenerateContentConfig) { c.Temperature = genai.Ptr[float32](0) }})
			if err != nil {
				t.Fatal(err)
			}
			msgs := []executor.Message{
				{Role: executor.RoleSystem, Content: "Be brief."},
				{Role: executor.RoleUser, Content: "Weather?"},
				{Role: executor.RoleAssistant, ToolCalls: []executor.Call{{ID: "c1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)}, {ID: "c2", Name: "get_time"}}},
				{Role: executor.RoleTool, ToolCallID: "c1", Name: "get_weather", Content: `{"temp_c":3}`},
				{Role: executor.RoleTool, ToolCallID: "c2", Name: "get_time", Content: "error (invalid_arguments): /city is required"},
			}
			msg, err := llm.Complete(context.Background(), executor.LLMRequest{Messages: msgs, Tools: fns, ToolChoice: tt.choice})
			if err != nil {
				t.Fatal(err)
			}
			if msg.Content != "ok" {
				t.Errorf("content = %q", msg.Content)
			}
			body := model.Requests()[0].Body
			want := map[string]any{
				"systemInstruction": map[string]any{"role": "user", "parts": []any{map[string]any{"text": "Be brief."}}},
				"toolConfig":        map[string]any{"functionCallingConfig": map[string]any{"mode": tt.mode}},
				"contents": []any{
					map[string]any{"role": "user", "parts": []any{map[string]any{"text": "Weather?"}}},
					map[string]any{"role": "model", "parts": []any{
						map[string]any{"functionCall": map[string]any{"id": "c1", "name": "get_weather", "args": map[string]any{"city": "Oslo"}}},
						map[string]any{"functionCall": map[string]any{"id": "c2", "name": "get_time"}}}},
					map[string]any{"role": "user", "parts": []any{
						map[string]any{"functionResponse": map[string]any{"id": "c1", "name": "get_weather", "response": map[string]any{"output": map[string]any{"temp_c": 3.0}}}},
						map[string]any{"functionResponse": map[string]any{"id": "c2", "name": "get_time", "response": map[string]any{"error": "error (invalid_arguments): /city is required"}}}}},
				},
				"temperature": 0.0,
			}
			got := map[string]any{"systemInstruction": body["systemInstruction"], "toolConfig": body["toolConfig"], "contents": body["contents"]}
			if gc, ok := body["generationConfig"].(map[string]any); ok {
				got["temperature"] = gc["temperature"]
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			if tools, _ := body["tools"].([]any); len(tools) != 1 {
				t.Errorf("tools = %v, want one tool of declarations", body["tools"])
			}
		})
	}
}
