package openaiadapter_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/toolhint/toolhint/adapters/openaiadapter"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adaptertest"
	"github.com/toolhint/toolhint/registry"
)

// chatModel is a fake Chat Completions model: its first turn calls get_weather and get_time
// in parallel; its second answers with the tool results it was sent.
func chatModel(turn int, req adaptertest.Request) any {
	if turn == 0 {
		return adaptertest.JSON(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o",
			"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[
				{"id":"call_w","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},
				{"id":"call_t","type":"function","function":{"name":"get_time","arguments":"{\"city\":\"Paris\"}"}}]}}],
			"usage":{"prompt_tokens":40,"completion_tokens":12,"total_tokens":52}}`)
	}
	var parts []string
	msgs, _ := req.Body["messages"].([]any)
	for _, m := range msgs {
		if m, _ := m.(map[string]any); m["role"] == "tool" {
			parts = append(parts, fmt.Sprintf("%v=%v", m["tool_call_id"], m["content"]))
		}
	}
	return map[string]any{"id": "chatcmpl-2", "object": "chat.completion", "created": 2, "model": "gpt-4o",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": strings.Join(parts, "; ")}}},
		"usage":   map[string]any{"prompt_tokens": 80, "completion_tokens": 20, "total_tokens": 100}}
}

// A host that drives its own loop with openai-go: the adapter turns toolhint's functions
// into the SDK's tools, the model's tool calls into executor calls, and the results into
// tool messages. The host writes no conversion code.
func Example_chatLoop() {
	ctx := context.Background()
	model := adaptertest.Start(chatModel) // stands in for the OpenAI API
	defer model.Close()
	client := openai.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))

	ex := adaptertest.Executor() // an executor with get_weather and get_time
	defer ex.Close()
	tools, err := openaiadapter.ChatTools(ex.Registry().Functions(), true)
	if err != nil {
		fmt.Println(err)
		return
	}

	msgs := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather and time in Paris?")}
	for turn := 1; turn <= 4; turn++ {
		resp, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: openai.ChatModel("gpt-5.5"), Messages: msgs, Tools: tools})
		if err != nil {
			fmt.Println(err)
			return
		}
		msg := resp.Choices[0].Message
		msgs = append(msgs, msg.ToParam())
		calls := openaiadapter.ChatCalls(msg)
		if len(calls) == 0 {
			fmt.Println("model:", msg.Content)
			break
		}
		results := ex.ExecuteBatch(ctx, calls, executor.BatchOptions{})
		for _, r := range results {
			fmt.Printf("turn %d: %s -> %s\n", turn, r.Tool, r.ForModel())
		}
		msgs = append(msgs, openaiadapter.ChatToolMessages(results)...)
	}
	// Output:
	// turn 1: get_weather -> {"city":"Paris","temp_c":18,"sky":"clear"}
	// turn 1: get_time -> {"city":"Paris","time":"14:05"}
	// model: call_w={"city":"Paris","temp_c":18,"sky":"clear"}; call_t={"city":"Paris","time":"14:05"}
}

// The executor's own loop, RunStep, over openai-go: NewChat is the executor.LLM.
func ExampleNewChat() {
	ctx := context.Background()
	model := adaptertest.Start(chatModel)
	defer model.Close()
	client := openai.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))

	var tokens int64
	llm, err := openaiadapter.NewChat(&client.Chat.Completions, openaiadapter.ChatConfig{
		Model:      openai.ChatModel("gpt-5.5"),
		Strict:     true,
		OnResponse: func(_ context.Context, resp *openai.ChatCompletion) { tokens += resp.Usage.TotalTokens },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ex := adaptertest.Executor()
	defer ex.Close()
	res, err := ex.RunStep(ctx, llm, executor.Step{Prompt: "Weather and time in Paris?", Platform: []registry.Category{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d turns, %d tool results, %d tokens\n", res.Turns, len(res.Results), tokens)
	fmt.Println("model:", res.Final)
	// Output:
	// 2 turns, 2 tool results, 152 tokens
	// model: call_w={"city":"Paris","temp_c":18,"sky":"clear"}; call_t={"city":"Paris","time":"14:05"}
}

// responsesModel is chatModel for the Responses API.
func responsesModel(turn int, req adaptertest.Request) any {
	if turn == 0 {
		return adaptertest.JSON(`{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-4o",
			"output":[
				{"type":"function_call","id":"fc_1","call_id":"call_w","name":"get_weather","arguments":"{\"city\":\"Paris\"}","status":"completed"},
				{"type":"function_call","id":"fc_2","call_id":"call_t","name":"get_time","arguments":"{\"city\":\"Paris\"}","status":"completed"}],
			"usage":{"input_tokens":40,"output_tokens":12,"total_tokens":52,"input_tokens_details":{"cached_tokens":0},"output_tokens_details":{"reasoning_tokens":0}}}`)
	}
	var parts []string
	items, _ := req.Body["input"].([]any)
	for _, it := range items {
		if it, _ := it.(map[string]any); it["type"] == "function_call_output" {
			parts = append(parts, fmt.Sprintf("%v=%v", it["call_id"], it["output"]))
		}
	}
	return map[string]any{"id": "resp_2", "object": "response", "created_at": 2, "status": "completed", "model": "gpt-4o",
		"output": []any{map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": strings.Join(parts, "; "), "annotations": []any{}}}}},
		"usage": map[string]any{"input_tokens": 80, "output_tokens": 20, "total_tokens": 100}}
}

// The same host loop over the Responses API, keeping the conversation itself.
func Example_responsesLoop() {
	ctx := context.Background()
	model := adaptertest.Start(responsesModel)
	defer model.Close()
	client := openai.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))

	ex := adaptertest.Executor()
	defer ex.Close()
	tools, err := openaiadapter.ResponseTools(ex.Registry().Functions(), true)
	if err != nil {
		fmt.Println(err)
		return
	}
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage("Weather and time in Paris?", responses.EasyInputMessageRoleUser)}
	for turn := 1; turn <= 4; turn++ {
		resp, err := client.Responses.New(ctx, responses.ResponseNewParams{Model: openai.ChatModel("gpt-5.5"), Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}, Tools: tools})
		if err != nil {
			fmt.Println(err)
			return
		}
		input = append(input, openaiadapter.ResponseInputs(resp)...)
		calls := openaiadapter.ResponseCalls(resp)
		if len(calls) == 0 {
			fmt.Println("model:", resp.OutputText())
			break
		}
		results := ex.ExecuteBatch(ctx, calls, executor.BatchOptions{})
		for _, r := range results {
			fmt.Printf("turn %d: %s -> %s\n", turn, r.Tool, r.ForModel())
		}
		input = append(input, openaiadapter.ResponseToolOutputs(results)...)
	}
	// Output:
	// turn 1: get_weather -> {"city":"Paris","temp_c":18,"sky":"clear"}
	// turn 1: get_time -> {"city":"Paris","time":"14:05"}
	// model: call_w={"city":"Paris","temp_c":18,"sky":"clear"}; call_t={"city":"Paris","time":"14:05"}
}

// issueModel is a fake Chat Completions model: it opens an issue with the first tool it was
// offered.
func issueModel(_ int, req adaptertest.Request) any {
	tools, _ := req.Body["tools"].([]any)
	fn := tools[0].(map[string]any)["function"].(map[string]any)
	return map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": map[string]any{"role": "assistant", "content": nil,
			"tool_calls": []any{map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": fn["name"],
				"arguments": `{"owner":"acme","repo":"web","title":"Login fails"}`}}}}}}}
}

// Chatbot mode: a hint before the turn names the actions that fit, and HintChatTools turns
// it into the request's tools (access-checked, strict where the schema allows) in one call.
func ExampleHintChatTools() {
	ctx := context.Background()
	model := adaptertest.Start(issueModel)
	defer model.Close()
	client := openai.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
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
	tools, res, err := openaiadapter.HintChatTools(ctx, resolver, registry.Subject{AgentID: 7}, h, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: openai.ChatModel("gpt-5.5"), Tools: tools,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(h.Text), openai.UserMessage(prompt)}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range ex.ExecuteBatch(ctx, openaiadapter.ChatCalls(resp.Choices[0].Message), executor.BatchOptions{}) {
		fmt.Println(r.Tool, "->", r.ForModel())
	}
	sent := model.Requests()[0].Body["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)
	fmt.Println("offered:", res.Actions, "strict:", sent["strict"])
	// Output:
	// GITHUB_CREATE_AN_ISSUE -> {"args":{"owner":"acme","repo":"web","title":"Login fails"},"ran":"GITHUB_CREATE_AN_ISSUE"}
	// offered: [GITHUB_CREATE_AN_ISSUE GITHUB_LIST_ISSUES] strict: true
}
