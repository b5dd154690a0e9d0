package genaiadapter_test

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/toolhint/toolhint/adapters/genaiadapter"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/internal/adaptertest"
	"github.com/toolhint/toolhint/registry"
)

// gemini is a fake Gemini API model: its first turn calls get_weather and get_time (without
// call ids, as Gemini often does, and with a thought signature); its second answers with
// the function responses it was sent.
func gemini(turn int, req adaptertest.Request) any {
	if turn == 0 {
		return adaptertest.JSON(`{"candidates":[{"content":{"role":"model","parts":[
			{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"c2lnMQ=="},
			{"functionCall":{"name":"get_time","args":{"city":"Paris"}}}]},"finishReason":"STOP"}],
			"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":12,"totalTokenCount":52}}`)
	}
	var parts []string
	contents, _ := req.Body["contents"].([]any)
	for _, c := range contents {
		ps, _ := c.(map[string]any)["parts"].([]any)
		for _, p := range ps {
			p, _ := p.(map[string]any)
			if fr, ok := p["functionResponse"].(map[string]any); ok {
				out, _ := fr["response"].(map[string]any)
				parts = append(parts, fmt.Sprintf("%v=%v", fr["name"], out["output"]))
			}
			if fc, ok := p["functionCall"].(map[string]any); ok && p["thoughtSignature"] != nil {
				parts = append(parts, fmt.Sprintf("signed %v", fc["name"]))
			}
		}
	}
	return map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model",
		"parts": []any{map[string]any{"text": strings.Join(parts, "; ")}}}, "finishReason": "STOP"}},
		"usageMetadata": map[string]any{"promptTokenCount": 80, "candidatesTokenCount": 20, "totalTokenCount": 100}}
}

func newClient(ctx context.Context, url string) (*genai.Client, error) {
	return genai.NewClient(ctx, &genai.ClientConfig{APIKey: "test", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: url}})
}

// A host that drives its own loop with the Gen AI SDK: the adapter turns toolhint's
// functions into a genai.Tool, function calls into executor calls, and the results into
// the content that answers them.
func Example_loop() {
	ctx := context.Background()
	model := adaptertest.Start(gemini) // stands in for the Gemini API
	defer model.Close()
	client, err := newClient(ctx, model.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	ex := adaptertest.Executor() // an executor with get_weather and get_time
	defer ex.Close()
	tool, err := genaiadapter.Tool(ex.Registry().Functions())
	if err != nil {
		fmt.Println(err)
		return
	}
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{tool}}
	contents := []*genai.Content{genai.NewContentFromText("Weather and time in Paris?", genai.RoleUser)}
	for turn := 1; turn <= 4; turn++ {
		resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, config)
		if err != nil {
			fmt.Println(err)
			return
		}
		contents = append(contents, resp.Candidates[0].Content)
		calls := genaiadapter.Calls(resp)
		if len(calls) == 0 {
			fmt.Println("model:", resp.Text())
			break
		}
		results := ex.ExecuteBatch(ctx, calls, executor.BatchOptions{})
		for _, r := range results {
			fmt.Printf("turn %d: %s -> %s\n", turn, r.Tool, r.ForModel())
		}
		contents = append(contents, genaiadapter.FunctionResponses(calls, results))
	}
	// Output:
	// turn 1: get_weather -> {"city":"Paris","temp_c":18,"sky":"clear"}
	// turn 1: get_time -> {"city":"Paris","time":"14:05"}
	// model: signed get_weather; get_weather=map[city:Paris sky:clear temp_c:18]; get_time=map[city:Paris time:14:05]
}

// The executor's own loop, RunStep, over the Gen AI SDK: New is the executor.LLM. It keeps
// the thought signature of the call that had one.
func ExampleNew() {
	ctx := context.Background()
	model := adaptertest.Start(gemini)
	defer model.Close()
	client, err := newClient(ctx, model.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	var tokens int32
	llm, err := genaiadapter.New(client.Models, genaiadapter.Config{
		Model:      "gemini-2.5-flash",
		OnResponse: func(_ context.Context, r *genai.GenerateContentResponse) { tokens += r.UsageMetadata.TotalTokenCount },
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
	// model: signed get_weather; get_weather=map[city:Paris sky:clear temp_c:18]; get_time=map[city:Paris time:14:05]
}
