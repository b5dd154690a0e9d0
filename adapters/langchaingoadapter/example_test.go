package langchaingoadapter_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms/fake"
	lcschema "github.com/tmc/langchaingo/schema"

	"github.com/toolhint/toolhint/adapters/langchaingoadapter"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adaptertest"
	"github.com/toolhint/toolhint/registry"
)

// A LangChainGo agent runs toolhint's tools. The fake model's first answer calls
// get_weather without its city (the failure reaches the model, which corrects itself), its
// second calls it properly and its third answers.
func Example() {
	ctx := context.Background()
	ex := adaptertest.Executor() // an executor with get_weather and get_time
	defer ex.Close()

	tools, err := langchaingoadapter.Tools(ex, ex.Registry().Functions())
	if err != nil {
		fmt.Println(err)
		return
	}
	llm := fake.NewFakeLLM([]string{
		"Thought: I need the weather.\nAction: get_weather\nAction Input: {}",
		"Thought: I forgot the city.\nAction: get_weather\nAction Input: {\"city\":\"Paris\"}",
		"Thought: I know it now.\nFinal Answer: 18°C and clear in Paris.",
	})
	agent := agents.NewExecutor(agents.NewOneShotAgent(llm, tools), agents.WithReturnIntermediateSteps())
	out, err := chains.Call(ctx, agent, map[string]any{"input": "What is the weather in Paris?"})
	if err != nil {
		fmt.Println(err)
		return
	}
	steps, _ := out["intermediateSteps"].([]lcschema.AgentStep)
	for _, s := range steps {
		first, _, _ := strings.Cut(s.Observation, "\n")
		fmt.Println(s.Action.Tool, "->", first)
	}
	fmt.Println(out["output"])
	// Output:
	// get_weather -> error (invalid_arguments): arguments for get_weather do not match its schema:
	// get_weather -> {"city":"Paris","temp_c":18,"sky":"clear"}
	// 18°C and clear in Paris.
}

// Chatbot mode: a hint before the turn names the actions that fit, and HintTools turns it
// into LangChainGo tools (access-checked, identity keys hidden) in one call. Each tool's
// description tells the model the JSON object to write.
func ExampleHintTools() {
	ctx := context.Background()
	st, ex := adaptertest.Catalogue() // GitHub actions agent 7 may call, and an executor for it
	defer ex.Close()
	resolver, err := registry.NewResolver(registry.ResolverConfig{Store: st})
	if err != nil {
		fmt.Println(err)
		return
	}
	h, err := hint.Build(ctx, st, hint.Request{AgentID: 7, Prompt: "open an issue in acme/web: login fails"})
	if err != nil {
		fmt.Println(err)
		return
	}
	tools, res, err := langchaingoadapter.HintTools(ctx, resolver, registry.Subject{AgentID: 7}, h, ex)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("offered:", res.Actions)
	fmt.Println(tools[0].Description())
	out, err := tools[0].Call(ctx, `{"owner":"acme","repo":"web","title":"Login fails"}`)
	fmt.Println(out, err)
	// Output:
	// offered: [GITHUB_CREATE_AN_ISSUE GITHUB_LIST_ISSUES]
	// Create an issue in a repository.
	// Input: a JSON object matching this JSON Schema: {"properties":{"owner":{"type":"string"},"repo":{"type":"string"},"title":{"type":"string"}},"required":["owner","repo","title"],"type":"object"}
	// {"args":{"owner":"acme","repo":"web","title":"Login fails"},"ran":"GITHUB_CREATE_AN_ISSUE"} <nil>
}
