package anthropicadapter_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/toolhint/toolhint/adapters/anthropicadapter"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adaptertest"
	"github.com/toolhint/toolhint/registry"
)

// claude is a fake Messages API model: its first turn asks for get_weather and get_time in
// parallel; its second answers with the tool results of the last user turn, and says how
// many user turns carried tool results.
func claude(turn int, req adaptertest.Request) any {
	if turn == 0 {
		return adaptertest.JSON(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",
			"content":[{"type":"text","text":"Checking."},
				{"type":"tool_use","id":"toolu_w","name":"get_weather","input":{"city":"Paris"}},
				{"type":"tool_use","id":"toolu_t","name":"get_time","input":{"city":"Paris"}}],
			"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":40,"output_tokens":12}}`)
	}
	var parts []string
	resultTurns := 0
	msgs, _ := req.Body["messages"].([]any)
	for _, m := range msgs {
		m, _ := m.(map[string]any)
		blocks, _ := m["content"].([]any)
		found := false
		for _, b := range blocks {
			if b, _ := b.(map[string]any); b["type"] == "tool_result" {
				found = true
				content, _ := b["content"].([]any)
				text := content[0].(map[string]any)["text"]
				parts = append(parts, fmt.Sprintf("%v=%v", b["tool_use_id"], text))
			}
		}
		if found {
			resultTurns++
		}
	}
	return textReply(fmt.Sprintf("%s (%d user turn of results)", strings.Join(parts, "; "), resultTurns))
}

// textReply is a fake model's last turn: a message that answers with text and ends the turn.
func textReply(text string) any {
	return map[string]any{"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
		"content":     []any{map[string]any{"type": "text", "text": text}},
		"stop_reason": "end_turn", "stop_sequence": nil, "usage": map[string]any{"input_tokens": 80, "output_tokens": 20}}
}

// A host that drives its own loop with anthropic-sdk-go: the adapter turns toolhint's
// functions into the SDK's tools, tool_use blocks into executor calls, and the results into
// the one user turn that answers them. The host writes no conversion code.
func Example_loop() {
	ctx := context.Background()
	model := adaptertest.Start(claude) // stands in for the Anthropic API
	defer model.Close()
	client := anthropic.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))

	ex := adaptertest.Executor() // an executor with get_weather and get_time
	defer ex.Close()
	tools, err := anthropicadapter.Tools(ex.Registry().Functions(), false)
	if err != nil {
		fmt.Println(err)
		return
	}

	msgs := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather and time in Paris?"))}
	for turn := 1; turn <= 4; turn++ {
		resp, err := client.Messages.New(ctx, anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024, Messages: msgs, Tools: tools})
		if err != nil {
			fmt.Println(err)
			return
		}
		msgs = append(msgs, resp.ToParam())
		calls := anthropicadapter.Calls(resp)
		if len(calls) == 0 {
			fmt.Println("model:", resp.Content[0].Text)
			break
		}
		results := ex.ExecuteBatch(ctx, calls, executor.BatchOptions{})
		for _, r := range results {
			fmt.Printf("turn %d: %s -> %s\n", turn, r.Tool, r.ForModel())
		}
		msgs = append(msgs, anthropicadapter.ToolResults(results))
	}
	// Output:
	// turn 1: get_weather -> {"city":"Paris","temp_c":18,"sky":"clear"}
	// turn 1: get_time -> {"city":"Paris","time":"14:05"}
	// model: toolu_w={"city":"Paris","temp_c":18,"sky":"clear"}; toolu_t={"city":"Paris","time":"14:05"} (1 user turn of results)
}

// The executor's own loop, RunStep, over anthropic-sdk-go: New is the executor.LLM. The
// step's tool messages reach the API as one user turn.
func ExampleNew() {
	ctx := context.Background()
	model := adaptertest.Start(claude)
	defer model.Close()
	client := anthropic.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))

	var out int64
	llm, err := anthropicadapter.New(&client.Messages, anthropicadapter.Config{
		Model:      anthropic.ModelClaudeSonnet5_5,
		OnResponse: func(_ context.Context, msg *anthropic.Message) { out += msg.Usage.OutputTokens },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ex := adaptertest.Executor()
	defer ex.Close()
	res, err := ex.RunStep(ctx, llm, executor.Step{System: "Be brief.", Prompt: "Weather and time in Paris?", Platform: []registry.Category{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d turns, %d tool results, %d output tokens\n", res.Turns, len(res.Results), out)
	fmt.Println("model:", res.Final)
	// Output:
	// 2 turns, 2 tool results, 32 output tokens
	// model: toolu_w={"city":"Paris","temp_c":18,"sky":"clear"}; toolu_t={"city":"Paris","time":"14:05"} (1 user turn of results)
}

// issueClaude is a fake Messages API model: it opens an issue with the first tool it was
// offered.
func issueClaude(_ int, req adaptertest.Request) any {
	tools, _ := req.Body["tools"].([]any)
	return map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
		"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": tools[0].(map[string]any)["name"],
			"input": map[string]any{"owner": "acme", "repo": "web", "title": "Login fails"}}},
		"stop_reason": "tool_use", "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}
}

// Chatbot mode: a hint before the turn names the actions that fit, and HintTools turns it
// into the request's tools (access-checked, identity keys hidden) in one call.
func ExampleHintTools() {
	ctx := context.Background()
	model := adaptertest.Start(issueClaude)
	defer model.Close()
	client := anthropic.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	st, ex := adaptertest.Catalogue() // GitHub actions agent 7 may call, and an executor for it
	defer ex.Close()
	resolver, err := registry.NewResolver(registry.ResolverConfig{Store: st})
	if err != nil {
		fmt.Println(err)
		return
	}

	prompt := "open an issue in acme/web: login fails"
	h, err := hint.Build(ctx, st, hint.Request{AgentID: 7, Prompt: prompt})
	if err != nil {
		fmt.Println(err)
		return
	}
	tools, res, err := anthropicadapter.HintTools(ctx, resolver, registry.Subject{AgentID: 7}, h, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := client.Messages.New(ctx, anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024, Tools: tools,
		System:   []anthropic.TextBlockParam{{Text: h.Text}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range ex.ExecuteBatch(ctx, anthropicadapter.Calls(resp), executor.BatchOptions{}) {
		fmt.Println(r.Tool, "->", r.ForModel())
	}
	fmt.Println("offered:", res.Actions)
	// Output:
	// GITHUB_CREATE_AN_ISSUE -> {"args":{"owner":"acme","repo":"web","title":"Login fails"},"ran":"GITHUB_CREATE_AN_ISSUE"}
	// offered: [GITHUB_CREATE_AN_ISSUE GITHUB_LIST_ISSUES]
}
