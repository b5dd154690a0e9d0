package anthropicadapter_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/toolhint/toolhint/adapters/anthropicadapter"
	"github.com/toolhint/toolhint/internal/adaptertest"
)

// runnerModel is a fake Messages API model for the tool runner: its first turn calls
// get_weather for Paris and get_time without a city; its second says what the tool results
// it was sent held, first lines only, with their is_error flags.
func runnerModel(turn int, req adaptertest.Request) any {
	if turn == 0 {
		return adaptertest.JSON(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",
			"content":[{"type":"tool_use","id":"toolu_w","name":"get_weather","input":{"city":"Paris"}},
				{"type":"tool_use","id":"toolu_t","name":"get_time","input":{}}],
			"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":40,"output_tokens":12}}`)
	}
	var parts []string
	msgs, _ := req.Body["messages"].([]any)
	for _, m := range msgs {
		blocks, _ := m.(map[string]any)["content"].([]any)
		for _, b := range blocks {
			if b, _ := b.(map[string]any); b["type"] == "tool_result" {
				content, _ := b["content"].([]any)
				text, _ := content[0].(map[string]any)["text"].(string)
				first, _, _ := strings.Cut(text, "\n")
				parts = append(parts, fmt.Sprintf("%v is_error=%v: %s", b["tool_use_id"], b["is_error"] == true, first))
			}
		}
	}
	return textReply(strings.Join(parts, "\n"))
}

// Anthropic's tool runner runs toolhint's tools: RunnerTools gives it the executor's
// functions, and the runner loops model → tools → model. A failed call reaches the model as
// a tool_result with is_error set.
func ExampleRunnerTools() {
	ctx := context.Background()
	model := adaptertest.Start(runnerModel) // stands in for the Anthropic API
	defer model.Close()
	client := anthropic.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	ex := adaptertest.Executor() // an executor with get_weather and get_time
	defer ex.Close()

	tools, err := anthropicadapter.RunnerTools(ex, ex.Registry().Functions())
	if err != nil {
		fmt.Println(err)
		return
	}
	runner := client.Beta.Messages.NewToolRunner(tools, anthropic.BetaToolRunnerParams{
		BetaMessageNewParams: anthropic.BetaMessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 1024,
			Messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("Weather and time in Paris?"))}},
		MaxIterations: 4,
	})
	msg, err := runner.RunToCompletion(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(msg.Content[0].Text)
	fmt.Println(len(model.Requests()), "requests")
	// Output:
	// toolu_w is_error=false: {"city":"Paris","temp_c":18,"sky":"clear"}
	// toolu_t is_error=true: Error: error (invalid_arguments): arguments for get_time do not match its schema:
	// 2 requests
}
